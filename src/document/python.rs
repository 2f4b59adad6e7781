//! The Python built-ins PyYAML's `SafeConstructor` hands scalars to — `int(text, base)`,
//! `float(text)`, `base64.decodebytes` — with their quirks, so that amlint accepts and
//! refuses the values the Azure ML CLI (Python 3.11 or later) does: Unicode decimal digits
//! and whitespace, base prefixes again after PyYAML's own (`int('0o17', 8)`), integers of
//! any size, and Python 3.11's limit of 4,300 digits on converting decimal text to an
//! integer.
//!
//! Every function here runs in time linear in its text: the only conversion between
//! number bases (a `0x`/`0o`/`0b` integer to decimal digits, for messages and keys) is done
//! for integers that Python itself can print (at most [`MAX_STR_DIGITS`] digits); larger ones
//! are kept as written.

use std::sync::LazyLock;

/// Python's default `sys.get_int_max_str_digits()` (3.11 and later): `int(text)` refuses
/// decimal text with more digits, and `str(n)` an integer with more.
pub const MAX_STR_DIGITS: usize = 4300;

/// The first code point (digit zero) of each run of ten Unicode decimal digits (general
/// category Nd), which Python's `int()` and `float()` read as `0`–`9`: the runs of Python
/// 3.13 (Unicode 15.1; 3.11 knows all but U+11F50 and U+1E4F0). Written out from
/// `unicodedata.decimal`; every run holds the digits 0 to 9 in order.
const DECIMAL_ZEROS: [u32; 68] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50,
    0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40,
    0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066,
    0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950,
    0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC,
    0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
];

/// The value of a Unicode decimal digit (`unicodedata.decimal`).
fn unicode_decimal(c: char) -> Option<u8> {
    let c = c as u32;
    let i = DECIMAL_ZEROS.partition_point(|&z| z <= c).checked_sub(1)?;
    let d = c - DECIMAL_ZEROS[i];
    (d < 10).then_some(d as u8)
}

/// What `int()` and `float()` read: CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`
/// (a non-ASCII whitespace character becomes a space, a decimal digit its ASCII digit; any
/// other non-ASCII character makes the text invalid), then without the leading and trailing
/// whitespace `Py_ISSPACE` knows (ASCII only: `\x1c`–`\x1f` stay and are refused).
fn numeric_ascii(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if c.is_whitespace() {
            // Rust's White_Space is Python's `isspace` outside ASCII.
            out.push(' ');
        } else {
            out.push(char::from(b'0' + unicode_decimal(c)?));
        }
    }
    let trimmed = out.trim_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    Some(if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_string()
    })
}

/// An integer as Python holds it: exact while it has at most [`MAX_STR_DIGITS`] decimal
/// digits (about 14,300 bits), else only known to be larger.
#[derive(Clone, Debug, PartialEq)]
pub enum PyInt {
    /// Fits an `i64` (the common case, without a [`Big`]).
    Small(i64),
    Exact(Big),
    /// More than [`MAX_STR_DIGITS`] decimal digits: Python holds it, but cannot print it.
    /// Written in a base that is a power of two, it is kept in hexadecimal (`0x…`, `-0x…`,
    /// lower case, no leading zero), a conversion in linear time; otherwise (sexagesimal)
    /// its value is not kept.
    Huge(Option<String>),
}

/// A signed integer in base 10^9 limbs, least significant first, of at most
/// [`Big::MAX_LIMBS`] limbs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Big {
    negative: bool,
    limbs: Vec<u32>,
}

const LIMB: u64 = 1_000_000_000;

impl Big {
    /// Enough limbs for every integer Python prints (4,300 digits), and a few more.
    const MAX_LIMBS: usize = MAX_STR_DIGITS / 9 + 2;

    /// A non-negative integer below 10^18.
    fn small(n: u64) -> Big {
        let mut big = Big::default();
        big.mul_add(1, n);
        big
    }

    fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        if self.limbs.is_empty() {
            self.negative = false;
        }
    }

    /// `self = self * mul + add` on the magnitude (`mul`, `add` below 10^9); `false` when the
    /// result would exceed [`Big::MAX_LIMBS`].
    fn mul_add(&mut self, mul: u64, add: u64) -> bool {
        let mut carry = add;
        for limb in &mut self.limbs {
            let v = u64::from(*limb) * mul + carry;
            *limb = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        while carry > 0 {
            self.limbs.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
        self.trim();
        self.limbs.len() <= Self::MAX_LIMBS
    }

    /// `self += other`, signs included; `false` when the result would exceed
    /// [`Big::MAX_LIMBS`].
    fn add(&mut self, other: &Big) -> bool {
        if other.is_zero() {
            return true;
        }
        if self.is_zero() {
            *self = other.clone();
            return true;
        }
        if self.negative == other.negative {
            let mut carry = 0u64;
            for i in 0..self.limbs.len().max(other.limbs.len()) {
                let v = u64::from(*self.limbs.get(i).unwrap_or(&0))
                    + u64::from(*other.limbs.get(i).unwrap_or(&0))
                    + carry;
                if i < self.limbs.len() {
                    self.limbs[i] = (v % LIMB) as u32;
                } else {
                    self.limbs.push((v % LIMB) as u32);
                }
                carry = v / LIMB;
            }
            if carry > 0 {
                self.limbs.push(carry as u32);
            }
        } else {
            // Subtract the smaller magnitude from the larger; the sign is the larger's.
            let (large, small, negative) = if cmp_magnitude(&self.limbs, &other.limbs).is_ge() {
                (self.limbs.clone(), &other.limbs, self.negative)
            } else {
                (other.limbs.clone(), &self.limbs, other.negative)
            };
            let mut limbs = large;
            let mut borrow = 0i64;
            for (i, limb) in limbs.iter_mut().enumerate() {
                let mut v = i64::from(*limb) - i64::from(*small.get(i).unwrap_or(&0)) - borrow;
                borrow = i64::from(v < 0);
                if v < 0 {
                    v += LIMB as i64;
                }
                *limb = v as u32;
            }
            self.limbs = limbs;
            self.negative = negative;
        }
        self.trim();
        self.limbs.len() <= Self::MAX_LIMBS
    }

    fn negate(&mut self) {
        if !self.is_zero() {
            self.negative = !self.negative;
        }
    }

    /// Whether Python prints the integer: at most [`MAX_STR_DIGITS`] digits.
    fn prints(&self) -> bool {
        match self.limbs.split_last() {
            None => true,
            Some((last, rest)) => rest.len() * 9 + last.to_string().len() <= MAX_STR_DIGITS,
        }
    }

    /// The integer as an `i64`, when it fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.limbs.len() > 3 {
            return None;
        }
        let mut m: i128 = 0;
        for &limb in self.limbs.iter().rev() {
            m = m * LIMB as i128 + i128::from(limb);
        }
        i64::try_from(if self.negative { -m } else { m }).ok()
    }

    /// Python's `str()` of the integer; `None` beyond [`MAX_STR_DIGITS`] digits (where
    /// Python raises ValueError too).
    pub fn to_decimal(&self) -> Option<String> {
        let Some((last, rest)) = self.limbs.split_last() else {
            return Some("0".into());
        };
        let mut s = String::with_capacity(self.limbs.len() * 9 + 1);
        if self.negative {
            s.push('-');
        }
        s.push_str(&last.to_string());
        for limb in rest.iter().rev() {
            s.push_str(&format!("{limb:09}"));
        }
        (s.trim_start_matches('-').len() <= MAX_STR_DIGITS).then_some(s)
    }

    /// From digit values (most significant first) in `radix`, several digits a step.
    fn from_digits(digits: &[u8], radix: u32) -> Option<Big> {
        let per_step = match radix {
            2 => 29,
            8 => 9,
            10 => 9,
            _ => 7, // 16^7 < 10^9
        };
        let mut big = Big::default();
        let head = digits.len() % per_step;
        let chunks = std::iter::once(&digits[..head]).chain(digits[head..].chunks(per_step));
        for chunk in chunks.filter(|c| !c.is_empty()) {
            let mul = u64::from(radix).pow(chunk.len() as u32);
            let add = chunk
                .iter()
                .fold(0u64, |a, &d| a * u64::from(radix) + u64::from(d));
            if !big.mul_add(mul, add) {
                return None;
            }
        }
        Some(big)
    }
}

fn cmp_magnitude(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

/// Why Python refuses to make an integer of a text.
#[derive(Clone, Debug, PartialEq)]
pub enum IntError {
    /// `int()` raises "invalid literal for int() with base N" (ValueError).
    Invalid { base: u32 },
    /// Decimal text of more than [`MAX_STR_DIGITS`] digits (ValueError: "Exceeds the limit
    /// (4300 digits) for integer string conversion").
    TooManyDigits(usize),
}

/// Python's `int(text, base)` (base 2, 8, 10 or 16).
pub fn int(text: &str, base: u32) -> Result<PyInt, IntError> {
    let invalid = IntError::Invalid { base };
    let ascii = numeric_ascii(text).ok_or(invalid.clone())?;
    let (negative, rest) = match ascii.as_bytes().first() {
        Some(b'-') => (true, &ascii[1..]),
        Some(b'+') => (false, &ascii[1..]),
        _ => (false, ascii.as_str()),
    };
    // After the sign, the base's own prefix may be written again (`int('0x1f', 16)`).
    let prefix = match base {
        2 => Some(['b', 'B']),
        8 => Some(['o', 'O']),
        16 => Some(['x', 'X']),
        _ => None,
    };
    let rest = match prefix {
        Some(letters) if rest.len() > 1 && rest.starts_with('0') && rest[1..].starts_with(letters) => {
            &rest[2..]
        }
        _ => rest,
    };
    let digits: Vec<u8> = rest
        .chars()
        .map(|c| c.to_digit(base).map(|d| d as u8))
        .collect::<Option<_>>()
        .ok_or(invalid.clone())?;
    if digits.is_empty() {
        return Err(invalid);
    }
    if base == 10 && digits.len() > MAX_STR_DIGITS {
        return Err(IntError::TooManyDigits(digits.len()));
    }
    let significant = &digits[digits.iter().take_while(|&&d| d == 0).count()..];
    let bits_per_digit = match base {
        2 => 1,
        8 => 3,
        16 => 4,
        _ => 4, // an upper bound for decimal digits, whose count is bounded above
    };
    // Over about 14,300 bits the integer has more decimal digits than Python prints:
    // keep it unconverted, so that no conversion between bases costs more than linear time.
    if significant.len() * bits_per_digit > 14_400 && base != 10 {
        return Ok(PyInt::Huge(Some(hexadecimal(
            negative,
            significant,
            bits_per_digit,
        ))));
    }
    Ok(match Big::from_digits(significant, base) {
        Some(mut big) => {
            if negative {
                big.negate();
            }
            if let Some(n) = big.to_i64() {
                PyInt::Small(n)
            } else if big.prints() {
                PyInt::Exact(big)
            } else {
                PyInt::Huge((base != 10).then(|| hexadecimal(negative, significant, bits_per_digit)))
            }
        }
        None => PyInt::Huge((base != 10).then(|| hexadecimal(negative, significant, bits_per_digit))),
    })
}

/// The digits of a base `2^bits` (most significant first, no leading zero) in
/// hexadecimal, with `0x` and the sign.
fn hexadecimal(negative: bool, digits: &[u8], bits: usize) -> String {
    let mut nibbles = Vec::with_capacity(digits.len() * bits / 4 + 1);
    let (mut acc, mut held) = (0u32, 0usize);
    for &d in digits.iter().rev() {
        acc |= u32::from(d) << held;
        held += bits;
        while held >= 4 {
            nibbles.push(acc & 0xf);
            acc >>= 4;
            held -= 4;
        }
    }
    if held > 0 {
        nibbles.push(acc);
    }
    while nibbles.len() > 1 && nibbles.last() == Some(&0) {
        nibbles.pop();
    }
    let mut s = String::with_capacity(nibbles.len() + 3);
    if negative {
        s.push('-');
    }
    s.push_str("0x");
    s.extend(
        nibbles
            .iter()
            .rev()
            .map(|&n| char::from_digit(n, 16).unwrap_or('0')),
    );
    s
}

impl PyInt {
    pub fn zero() -> PyInt {
        PyInt::Small(0)
    }

    pub fn small(n: i64) -> PyInt {
        PyInt::Small(n)
    }

    /// The integer as a [`Big`], when it is known.
    pub fn big(&self) -> Option<Big> {
        match self {
            PyInt::Small(n) => {
                let mut big = Big::small(n.unsigned_abs());
                if *n < 0 {
                    big.negate();
                }
                Some(big)
            }
            PyInt::Exact(big) => Some(big.clone()),
            PyInt::Huge(_) => None,
        }
    }

    pub fn negate(&mut self) {
        match self {
            PyInt::Small(n) => match n.checked_neg() {
                Some(m) => *n = m,
                None => *self = PyInt::Exact(Big::small(n.unsigned_abs())),
            },
            PyInt::Exact(big) => big.negate(),
            PyInt::Huge(Some(hex)) => {
                *hex = match hex.strip_prefix('-') {
                    Some(positive) => positive.to_string(),
                    None => format!("-{hex}"),
                }
            }
            PyInt::Huge(None) => {}
        }
    }

    /// PyYAML's sexagesimal integers: `sum(part * 60**i)`, the last part first (`1:30` is
    /// 90), by Horner's rule, several small parts a step.
    pub fn sexagesimal(parts: &[PyInt]) -> PyInt {
        let mut acc = Big::default();
        let mut i = 0;
        while i < parts.len() {
            // Up to five parts in 0..60 at once: 60^5 < 10^9.
            let (mut mul, mut add, mut j) = (1u64, 0u64, i);
            while j < parts.len() && j - i < 5 {
                match parts[j] {
                    PyInt::Small(p @ 0..60) => {
                        mul *= 60;
                        add = add * 60 + p as u64;
                        j += 1;
                    }
                    _ => break,
                }
            }
            let fits = if j > i {
                i = j;
                // `mul_add` works on the magnitude: add the parts with their sign.
                acc.mul_add(mul, 0) && acc.add(&Big::small(add))
            } else {
                let Some(part) = parts[i].big() else {
                    return PyInt::Huge(None);
                };
                i += 1;
                acc.mul_add(60, 0) && acc.add(&part)
            };
            if !fits {
                return PyInt::Huge(None);
            }
        }
        match acc.to_i64() {
            Some(n) => PyInt::Small(n),
            None if acc.prints() => PyInt::Exact(acc),
            None => PyInt::Huge(None),
        }
    }
}

/// Python's `float(text)`: `None` where it raises ValueError. Underscores are not accepted
/// (PyYAML removes them first).
pub fn float(text: &str) -> Option<f64> {
    let ascii = numeric_ascii(text)?;
    let body = ascii.strip_prefix(['-', '+']).unwrap_or(&ascii);
    let word = body.to_ascii_lowercase();
    if !matches!(word.as_str(), "inf" | "infinity" | "nan") {
        // digits [. [digits]] | . digits, then an optional exponent.
        let b = body.as_bytes();
        let mut i = 0;
        let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        i += int_digits;
        let mut frac_digits = 0;
        if b.get(i) == Some(&b'.') {
            i += 1;
            frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            i += frac_digits;
        }
        if int_digits + frac_digits == 0 {
            return None;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'-' | b'+')) {
                i += 1;
            }
            let exp_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if exp_digits == 0 {
                return None;
            }
            i += exp_digits;
        }
        if i != b.len() {
            return None;
        }
    }
    // Rust's parser reads what the grammar above lets through, correctly rounded as
    // Python's is.
    ascii.parse().ok()
}

/// `float(60**i)` for every `i` where Python can make it (60^174 overflows a float):
/// correctly rounded from the exact integer, as Python converts one.
pub static POWERS_OF_60: LazyLock<Vec<f64>> = LazyLock::new(|| {
    let mut big = Big::small(1);
    let mut out = Vec::new();
    while let Some(f) = big
        .to_decimal()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|f| f.is_finite())
    {
        out.push(f);
        big.mul_add(60, 0);
    }
    out
});

/// Why `base64.decodebytes` (`binascii.a2b_base64`, not strict) refuses a text.
#[derive(Clone, Debug, PartialEq)]
pub enum Base64Error {
    /// A character outside ASCII, and its position in characters (PyYAML's
    /// `.encode('ascii')` fails first).
    NotAscii(char, usize),
    /// One data character more than a multiple of four.
    OneTooMany(usize),
    IncorrectPadding,
}

/// `base64.decodebytes`: characters outside the alphabet are skipped, a complete padding
/// ends the data (what follows is ignored).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    if let Some((at, c)) = text.chars().enumerate().find(|(_, c)| !c.is_ascii()) {
        return Err(Base64Error::NotAscii(c, at));
    }
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut quad, mut pads, mut left, mut data) = (0u32, 0u32, 0u8, 0usize);
    for b in text.bytes() {
        if b == b'=' {
            if quad >= 2 {
                pads += 1;
                if quad + pads >= 4 {
                    return Ok(out);
                }
            }
            continue;
        }
        let Some(v) = value(b) else {
            continue;
        };
        pads = 0;
        data += 1;
        match quad {
            0 => left = v,
            1 => {
                out.push((left << 2) | (v >> 4));
                left = v & 0x0f;
            }
            2 => {
                out.push((left << 4) | (v >> 2));
                left = v & 0x03;
            }
            _ => out.push((left << 6) | v),
        }
        quad = (quad + 1) % 4;
    }
    match quad {
        0 => Ok(out),
        1 => Err(Base64Error::OneTooMany(data)),
        _ => Err(Base64Error::IncorrectPadding),
    }
}

/// `base64.b64encode(data)`.
pub fn base64_encode(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(text: &str, base: u32) -> String {
        match int(text, base).map(|n| n.big()) {
            Ok(Some(b)) => b.to_decimal().unwrap(),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn int_reads_what_python_reads() {
        assert_eq!(exact(" 12 ", 10), "12");
        assert_eq!(exact("\u{3000}1\u{3000}", 10), "1");
        assert_eq!(exact("\u{661}\u{662}", 10), "12");
        assert_eq!(exact("\u{ff11}\u{ff12}", 10), "12");
        assert_eq!(exact("0o17", 8), "15");
        assert_eq!(exact("017", 8), "15");
        assert_eq!(exact("0B11", 2), "3");
        assert_eq!(exact("-ff", 16), "-255");
        assert_eq!(exact("0x\u{661}f", 16), "31");
        assert_eq!(exact("0012", 10), "12");
        assert_eq!(
            exact("742d35Cc6634C0532925a3b844Bc454e4438f44e", 16),
            "663251149454111653834953623422353210259843642446"
        );
        for (text, base) in [
            ("0B11", 8),
            ("0x", 16),
            ("0x-1", 16),
            ("\x1c1", 10),
            ("+ 1", 10),
            ("1 1", 10),
            ("", 10),
            ("\u{ff26}", 16),
        ] {
            assert_eq!(int(text, base), Err(IntError::Invalid { base }), "{text:?}");
        }
        assert!(matches!(int(&"1".repeat(4300), 10), Ok(PyInt::Exact(_))));
        assert_eq!(int(&"0".repeat(4301), 10), Err(IntError::TooManyDigits(4301)));
        // Power-of-two bases have no limit; beyond what Python prints, only the size is kept.
        assert_eq!(
            int(&"f".repeat(5000), 16),
            Ok(PyInt::Huge(Some(format!("0x{}", "f".repeat(5000)))))
        );
        assert_eq!(
            int(&format!("-00{}", "7".repeat(5000)), 8),
            Ok(PyInt::Huge(Some(format!("-0x{}", "f".repeat(3750)))))
        );
        assert_eq!(
            int(&format!("1{}", "0".repeat(15000)), 2),
            Ok(PyInt::Huge(Some(format!("0x1{}", "0".repeat(3750)))))
        );
        assert!(matches!(
            int(&format!("{}1", "0".repeat(50_000)), 16),
            Ok(PyInt::Small(1))
        ));
    }

    #[test]
    fn sexagesimal_is_exact_and_bounded() {
        let p = |s: &str| int(s, 10).unwrap();
        let v = PyInt::sexagesimal(&[
            p("1"),
            p("59"),
            p("59"),
            p("59"),
            p("59"),
            p("59"),
            p("59"),
            p("59"),
        ]);
        // 2 * 60**7 - 1
        assert_eq!(v, int("5598719999999", 10).unwrap());
        let v = PyInt::sexagesimal(&[p("1"), p("-30")]);
        assert_eq!(v, int("30", 10).unwrap());
        let v = PyInt::sexagesimal(&[p("-1"), p("30")]);
        assert_eq!(v, int("-30", 10).unwrap());
        let many: Vec<PyInt> = (0..3000).map(|_| p("59")).collect();
        assert_eq!(PyInt::sexagesimal(&many), PyInt::Huge(None));
    }

    #[test]
    fn float_reads_what_python_reads() {
        for (text, value) in [
            ("1.5", 1.5),
            (" 1.5 ", 1.5),
            ("1.", 1.0),
            (".5", 0.5),
            ("1e5", 1e5),
            ("1.e5", 1e5),
            ("-1E-2", -0.01),
            ("\u{661}.\u{665}", 1.5),
            ("1e500", f64::INFINITY),
            ("Infinity", f64::INFINITY),
            ("-inf", f64::NEG_INFINITY),
        ] {
            assert_eq!(float(text), Some(value), "{text:?}");
        }
        assert!(float("nan").unwrap().is_nan());
        for text in [
            ".", "", "e5", ".e5", "1e", "1e+", "0x10", "--1", "+-1", ".inf", "1 .5", "in", "nan(1)", "\x1c1",
        ] {
            assert_eq!(float(text), None, "{text:?}");
        }
        assert_eq!(POWERS_OF_60.len(), 174);
        assert_eq!(POWERS_OF_60[2], 3600.0);
    }

    #[test]
    fn base64_as_binascii() {
        assert_eq!(base64_decode("aGk="), Ok(b"hi".to_vec()));
        assert_eq!(base64_decode("aG k=xyz"), Ok(b"hi".to_vec()));
        assert_eq!(base64_decode("aGk"), Err(Base64Error::IncorrectPadding));
        assert_eq!(base64_decode("aGkab"), Err(Base64Error::OneTooMany(5)));
        assert_eq!(
            base64_decode("aGk=\u{e9}"),
            Err(Base64Error::NotAscii('\u{e9}', 4))
        );
        assert_eq!(base64_decode("-/=/+=+./="), Ok(vec![0xff, 0xff]));
        assert_eq!(base64_encode(b"hi"), "aGk=");
        assert_eq!(base64_encode(b"hi!"), "aGkh");
        assert_eq!(base64_encode(b""), "");
    }
}
