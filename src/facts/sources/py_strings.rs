//! `az ml compute create|attach` run from a Python file's strings:
//! `os.system("az ml compute create --name gpu --size Standard_NC6 …")`,
//! `subprocess.run("az ml compute create …", shell=True)`, or shown in a docstring. Each
//! string literal that holds such a command is read as a bash script at its place in the
//! `.py` file (`docs::read_python_strings`), in file order, so that findings land on the
//! option inside the string; a `{…}` an f-string or `str.format` fills in is not known.
//! The list form (`subprocess.run(["az", "ml", "compute", "create", …])`) is not read.
//! Suppressions: the file's Python comments.

use super::common::{Definitions, Input, Reader};

pub const READER: Reader = Reader {
    name: "az-cli python strings",
    wants: |name| name.ends_with(".py"),
    needles: super::common::COMMAND_WORDS,
    defines: super::common::COMMAND_WORDS,
    read,
};

/// How many strings of one file are read.
const MAX_STRINGS: usize = 64;

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_str();
    let strings = match super::python_sdk::strings_holding(text, super::common::COMMAND_WORDS, MAX_STRINGS) {
        Ok(s) => s,
        Err(why) => {
            out.unread = Some(why);
            return;
        }
    };
    if strings.regions.is_empty() {
        return;
    }
    super::docs::read_python_strings(input, &strings.regions, out);
    // The Python SDK reader, which runs first, gives the comments when it parsed the file.
    if out.comments.is_empty() {
        out.comments.extend(super::iac::comments(
            input.source,
            &strings.comments,
            &strings.code_lines,
        ));
    }
}
