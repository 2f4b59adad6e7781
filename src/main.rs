fn main() {
    std::process::exit(amlint::cli::main());
}
