//! [`RawClient`]: the baseline. It writes a line and reads a line over a
//! server's stdio, with blocking I/O and no protocol logic: no ids to track,
//! no handshake unless asked, no typed decoding.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::BenchError;

/// The longest response line read.
const MAX_LINE: u64 = 64 * 1024 * 1024;
/// How long a closed server may take to exit before it is killed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);
/// How often a closing server is polled for its exit.
const EXIT_POLL: Duration = Duration::from_millis(1);

/// A `ping` request line.
pub fn ping_request(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
}

/// A `tools/list` request line.
pub fn tools_list_request(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#)
}

/// A legacy `initialize` request line.
pub fn initialize_request(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"raw","version":"0"}}}}}}"#
    )
}

/// The `notifications/initialized` line.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The writing half of a [`RawClient`].
pub struct RawWriter {
    stdin: BufWriter<ChildStdin>,
}

impl RawWriter {
    /// Queues one line (a newline is added); [`flush`](Self::flush) sends it.
    pub fn send(&mut self, line: &str) -> Result<(), BenchError> {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .map_err(|e| BenchError::io("raw: writing a request", e))
    }

    /// Sends every queued line.
    pub fn flush(&mut self) -> Result<(), BenchError> {
        self.stdin
            .flush()
            .map_err(|e| BenchError::io("raw: writing a request", e))
    }
}

/// The reading half of a [`RawClient`].
pub struct RawReader {
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl RawReader {
    /// Reads one line, without its newline.
    pub fn receive(&mut self) -> Result<&[u8], BenchError> {
        self.line.clear();
        let read = self
            .stdout
            .by_ref()
            .take(MAX_LINE)
            .read_until(b'\n', &mut self.line)
            .map_err(|e| BenchError::io("raw: reading a response", e))?;
        if read == 0 || self.line.last() != Some(&b'\n') {
            return Err(BenchError::Raw(
                "the server closed stdout or sent an overlong line".into(),
            ));
        }
        Ok(&self.line[..self.line.len() - 1])
    }
}

/// A child process that is killed and reaped if it is dropped while running.
struct ServerProcess {
    child: Child,
}

impl ServerProcess {
    /// Waits for the exit, at most [`EXIT_TIMEOUT`], then kills.
    fn wait_bounded(&mut self) -> Result<ExitStatus, BenchError> {
        let deadline = Instant::now() + EXIT_TIMEOUT;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Ok(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(EXIT_POLL),
                Ok(None) => {
                    let _ = self.child.kill();
                    return self
                        .child
                        .wait()
                        .map_err(|e| BenchError::io("raw: reaping the server", e));
                }
                Err(error) => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return Err(BenchError::io("raw: waiting for the server", error));
                }
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A server process and the two ends of its stdio.
pub struct RawClient {
    process: ServerProcess,
    /// Writes requests.
    pub writer: RawWriter,
    /// Reads responses.
    pub reader: RawReader,
}

impl RawClient {
    /// Starts `program` with `args`; its stderr is inherited.
    pub fn spawn(program: &Path, args: &[String]) -> Result<Self, BenchError> {
        Self::spawn_with(program, args, &[], Stdio::inherit())
    }

    /// Starts `program` with `args`, these variables added to ours, and its stderr to `stderr`.
    pub fn spawn_with(
        program: &Path,
        args: &[String],
        env: &[(String, String)],
        stderr: Stdio,
    ) -> Result<Self, BenchError> {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| BenchError::io(format!("raw: cannot start {}", program.display()), e))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(BenchError::Raw("the server's stdio is not piped".into()));
        };
        Ok(Self {
            process: ServerProcess { child },
            writer: RawWriter {
                stdin: BufWriter::new(stdin),
            },
            reader: RawReader {
                stdout: BufReader::new(stdout),
                line: Vec::with_capacity(64 * 1024),
            },
        })
    }

    /// Sends one line and reads one line back.
    pub fn exchange(&mut self, line: &str) -> Result<&[u8], BenchError> {
        self.writer.send(line)?;
        self.writer.flush()?;
        self.reader.receive()
    }

    /// Kills the server at once and reaps it.
    pub fn kill(self) {
        drop(self);
    }

    /// Closes stdin and waits (bounded) for the server to exit, killing it after the bound.
    pub fn close(self) -> Result<ExitStatus, BenchError> {
        let Self {
            mut process,
            writer,
            reader,
        } = self;
        drop(writer);
        drop(reader);
        process.wait_bounded()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_json_rpc() {
        for line in [
            ping_request(1),
            tools_list_request(2),
            initialize_request(3),
        ] {
            let value: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(value["jsonrpc"], "2.0");
            assert!(value["id"].is_u64());
        }
        let value: serde_json::Value = serde_json::from_str(INITIALIZED).unwrap();
        assert!(value.get("id").is_none());
    }

    #[test]
    fn exchanges_lines_with_a_process_and_reaps_it() {
        let mut client = RawClient::spawn(Path::new("cat"), &[]).unwrap();
        assert_eq!(client.exchange("hello").unwrap(), b"hello");
        assert_eq!(client.exchange("again").unwrap(), b"again");
        assert!(client.close().unwrap().success());
    }

    #[test]
    fn a_closed_stdout_is_an_error() {
        let mut client = RawClient::spawn(Path::new("true"), &[]).unwrap();
        assert!(client.exchange("x").is_err());
    }
}
