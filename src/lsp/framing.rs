//! Framing of JSON-RPC messages on standard input: `Content-Length` headers, a body
//! that is not a message answered with a parse error and skipped, never fatal; a bad
//! header resynchronises on the next `Content-Length`.

use std::io::{BufRead, Read};

use crossbeam_channel::Sender;
use lsp_server::{ErrorCode, Message};

/// A longer header line is not a header (the input is resynchronised instead).
const MAX_HEADER_LINE: u64 = 64 * 1024;

/// What the reader thread hands the main loop.
pub enum Incoming {
    Message(Message),
    /// A body that is not a JSON-RPC message, with the JSON-RPC error code to answer.
    Malformed(i32, String),
}

/// Reads framed messages until end of input or `exit`.
pub fn read_loop(mut input: impl BufRead, tx: Sender<Incoming>, max_body: usize) {
    let mut resync = false;
    loop {
        let item = match read_frame(&mut input, &mut resync, max_body) {
            Ok(Some(body)) => parse_body(&body),
            Ok(None) => return,
            Err(Frame::Malformed(why)) => Incoming::Malformed(ErrorCode::ParseError as i32, why),
            Err(Frame::Io) => return,
        };
        let exit = matches!(&item, Incoming::Message(Message::Notification(n)) if n.method == "exit");
        if tx.send(item).is_err() || exit {
            return;
        }
    }
}

fn parse_body(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => Incoming::Message(m),
        Err(e) => {
            let code = if serde_json::from_slice::<serde_json::Value>(body).is_ok() {
                ErrorCode::InvalidRequest
            } else {
                ErrorCode::ParseError
            };
            Incoming::Malformed(code as i32, format!("cannot read this message: {e}"))
        }
    }
}

enum Frame {
    Malformed(String),
    Io,
}

/// The header every message starts with, as matched when resynchronising (lower case).
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Skips input up to and including the next `Content-Length:` (any case); false at end
/// of input. The pattern's first byte occurs in it only once, so a mismatch restarts
/// the match at the current byte.
fn skip_to_content_length(input: &mut impl BufRead) -> Result<bool, Frame> {
    let mut matched = 0;
    loop {
        let buf = match input.fill_buf() {
            Ok([]) => return Ok(false),
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Frame::Io),
        };
        let mut used = 0;
        let mut found = false;
        for &b in buf {
            used += 1;
            let b = b.to_ascii_lowercase();
            if b == CONTENT_LENGTH[matched] {
                matched += 1;
            } else {
                matched = usize::from(b == CONTENT_LENGTH[0]);
            }
            if matched == CONTENT_LENGTH.len() {
                found = true;
                break;
            }
        }
        input.consume(used);
        if found {
            return Ok(true);
        }
    }
}

/// One `Content-Length`-framed body (`None` at end of input). After a header block
/// without a valid `Content-Length` the body's extent is unknown: the frame is
/// reported malformed and `resync` set, and the next call skips everything up to the
/// next `Content-Length:` header, where a well-framed message can start again.
fn read_frame(
    input: &mut impl BufRead,
    resync: &mut bool,
    max_body: usize,
) -> Result<Option<Vec<u8>>, Frame> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    let mut resumed = std::mem::take(resync);
    if resumed && !skip_to_content_length(input)? {
        return Ok(None);
    }
    let mut line = Vec::new();
    loop {
        line.clear();
        if std::mem::take(&mut resumed) {
            line.extend_from_slice(b"Content-Length:");
        }
        let start = line.len();
        match input.by_ref().take(MAX_HEADER_LINE).read_until(b'\n', &mut line) {
            Ok(0) if start == 0 => return Ok(None),
            Ok(_) => {}
            Err(_) => return Err(Frame::Io),
        }
        if line.len() - start >= MAX_HEADER_LINE as usize && !line.ends_with(b"\n") {
            // Not a header: the rest is skipped up to the next message.
            *resync = true;
            return Err(Frame::Malformed("a message header is too long".to_string()));
        }
        let line = String::from_utf8_lossy(&line);
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
    let Some(length) = length else {
        *resync = true;
        return Err(Frame::Malformed(
            "a message header has no valid Content-Length".to_string(),
        ));
    };
    if length > max_body {
        // Neither buffered nor skipped by its declared length (which may be absurd, and
        // the client may never send that much): the next message is found by its header.
        *resync = true;
        return Err(Frame::Malformed(format!(
            "a message of {length} bytes is larger than the {max_body} bytes amlint reads (amlint lsp --max-message-size)"
        )));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body).map_err(|_| Frame::Io)?;
    Ok(Some(body))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_and_bad_headers_skipped() {
        let input = b"Content-Length: 2\r\n\r\n{}X-Other: 1\r\n\r\ncontent-length: 3\r\n\r\n[1]";
        let mut r = &input[..];
        let mut resync = false;
        let mut frame = |r: &mut &[u8]| read_frame(r, &mut resync, 64 * 1024 * 1024);
        assert_eq!(frame(&mut r).ok().flatten().as_deref(), Some(&b"{}"[..]));
        assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))));
        assert_eq!(frame(&mut r).ok().flatten().as_deref(), Some(&b"[1]"[..]));
        assert!(matches!(frame(&mut r), Ok(None)));

        // A bad length leaves its body unread: the next message is found by its header,
        // even right after the body on the same line.
        for bad in [&b"Content-Length: abc"[..], b"Content-Length: -5", b"X-Other: 1"] {
            let input = [bad, b"\r\n\r\n{\"a\":1}cOnTeNt-LeNgTh: 2\r\n\r\n{}"].concat();
            let mut r = &input[..];
            assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))));
            assert_eq!(frame(&mut r).ok().flatten().as_deref(), Some(&b"{}"[..]));
            assert!(matches!(frame(&mut r), Ok(None)));
        }
        // Garbage to the end of input is the end of input.
        let mut r = &b"Content-Length: x\r\n\r\ncontent-len"[..];
        assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))));
        assert!(matches!(frame(&mut r), Ok(None)));
        // A body over the limit, or a length that does not fit, is refused without reading
        // (or waiting for) that much; the next message is found by its header.
        for huge in [
            "Content-Length: 18446744073709551615",
            "Content-Length: 99999999999999999999999",
            "Content-Length: 67108865",
        ] {
            let input = format!("{huge}\r\n\r\n{{\"a\":1}}Content-Length: 2\r\n\r\n{{}}");
            let mut r = input.as_bytes();
            assert!(matches!(frame(&mut r), Err(Frame::Malformed(_))), "{huge}");
            assert_eq!(
                frame(&mut r).ok().flatten().as_deref(),
                Some(&b"{}"[..]),
                "{huge}"
            );
        }
        assert!(matches!(parse_body(b"{not json"), Incoming::Malformed(-32700, _)));
        assert!(matches!(parse_body(b"[1]"), Incoming::Malformed(-32600, _)));
    }
}
