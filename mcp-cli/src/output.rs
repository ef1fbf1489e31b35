//! What every command writes to stdout alike: the `--json` document.

use std::io::Write;

/// Writes `value` as pretty JSON to stdout, streamed through one buffer.
/// Items keep the text their server sent (compact, as sent) inside it.
pub fn print_json(value: &impl serde::Serialize) {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    if let Err(error) = written {
        // A closed pipe (`| head`) is not worth a message.
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write JSON: {error}");
        }
    }
}
