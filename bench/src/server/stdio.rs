//! Serving a [`Responder`] over a byte stream: standard input and output.

use std::io::{BufRead, BufReader, Read, Write};

use super::{Answer, Responder};

/// The longest request line the server reads; longer lines are skipped.
pub const MAX_LINE: usize = 1024 * 1024;

/// Answers every line of `input` on `output` until `input` ends.
///
/// Replies are flushed whenever no further request is already buffered, so
/// pipelined requests are answered in batches and a lone request at once.
pub fn serve<R: Read, W: Write>(
    responder: &Responder,
    input: &mut BufReader<R>,
    output: &mut W,
) -> std::io::Result<()> {
    let mut line = Vec::with_capacity(4096);
    // Inside a line longer than the bound: skip up to its newline.
    let mut discarding = false;
    loop {
        line.clear();
        let read = input
            .by_ref()
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return output.flush();
        }
        if line.last() != Some(&b'\n') {
            if read < MAX_LINE {
                // The input ended in the middle of a line.
                return output.flush();
            }
            discarding = true;
            continue;
        }
        if discarding {
            discarding = false;
            continue;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Answer::Reply(reply) = responder.answer(text) {
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn run(input: &str) -> Vec<Value> {
        let responder = Responder::new("s", 2);
        let mut reader = BufReader::new(input.as_bytes());
        let mut out = Vec::new();
        serve(&responder, &mut reader, &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn answers_each_request_line() {
        let replies = run(concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            "\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\r\n",
        ));
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["id"], 1);
        assert_eq!(replies[1]["result"]["tools"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn skips_oversized_lines_and_goes_on() {
        let mut input = String::from("{\"x\":\"");
        input.push_str(&"a".repeat(MAX_LINE + 10));
        input.push_str("\"}\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
        let replies = run(&input);
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["id"], 9);
    }

    #[test]
    fn a_last_line_without_newline_is_ignored() {
        assert!(run("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").is_empty());
    }
}
