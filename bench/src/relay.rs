//! B5's byte relays over stdio: a program run as our child, bytes copied
//! between our stdin and stdout and its, parsing nothing.
//!
//! * [`relay`], the floor: a thread for each direction, each blocking in
//!   `read` and writing what it read at once.
//! * [`event_loop_relay`], a reference: the same copies from one thread on
//!   tokio's current-thread runtime (`epoll`, non-blocking pipes), as an
//!   async gateway serves a stdio connection. What it takes over
//!   [`relay`] is the price of that design on the machine, before any
//!   protocol work.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::BenchError;

/// The size of each copy's buffer.
const BUFFER: usize = 64 * 1024;

/// `bench-runner relay -- PROGRAM ARGS...`: runs PROGRAM and copies bytes
/// from this process's stdin to its stdin, and from its stdout to this
/// process's stdout, as they come, parsing nothing; ends when stdin ends
/// and PROGRAM has exited.
pub fn relay(program: &Path, args: &[OsString]) -> Result<(), BenchError> {
    let mut child = relayed(program, args)
        .spawn()
        .map_err(|e| BenchError::io(format!("cannot start {}", program.display()), e))?;
    let (Some(mut to_child), Some(mut from_child)) = (child.stdin.take(), child.stdout.take())
    else {
        return Err(BenchError::Unexpected(
            "no pipes to the relayed program".into(),
        ));
    };
    let up = std::thread::spawn(move || {
        let _ = copy_flushing(&mut std::io::stdin().lock(), &mut to_child);
        // Dropping the child's stdin tells it the client is gone.
    });
    let _ = copy_flushing(&mut from_child, &mut std::io::stdout().lock());
    let _ = up.join();
    child
        .wait()
        .map_err(|e| BenchError::io("cannot reap the relayed program", e))?;
    Ok(())
}

/// The relayed program: its stdin and stdout piped to us, its stderr ours.
fn relayed(program: &Path, args: &[OsString]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

/// Copies through one fixed buffer, each read written and flushed at once.
fn copy_flushing(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buffer = vec![0u8; BUFFER];
    loop {
        let read = from.read(&mut buffer)?;
        if read == 0 {
            return Ok(());
        }
        to.write_all(&buffer[..read])?;
        to.flush()?;
    }
}

/// `bench-runner relay --event-loop -- PROGRAM ARGS...`: what [`relay`]
/// does, from one thread: a current-thread tokio runtime whose two tasks
/// copy each direction over non-blocking pipes.
pub fn event_loop_relay(program: &Path, args: &[OsString]) -> Result<(), BenchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| BenchError::io("cannot start a runtime", e))?;
    runtime.block_on(async {
        let mut child = tokio::process::Command::from(relayed(program, args))
            .spawn()
            .map_err(|e| BenchError::io(format!("cannot start {}", program.display()), e))?;
        let (Some(to_child), Some(from_child)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(BenchError::Unexpected(
                "no pipes to the relayed program".into(),
            ));
        };
        let (stdin, stdout) = standard_pipes()?;
        let up = tokio::spawn(async move {
            let _ = copy_async(stdin, to_child).await;
        });
        let _ = copy_async(from_child, stdout).await;
        let _ = up.await;
        child
            .wait()
            .await
            .map_err(|e| BenchError::io("cannot reap the relayed program", e))?;
        Ok(())
    })
}

/// This process's stdin and stdout as non-blocking pipes, as `mcp-cli
/// serve` reads and writes them.
fn standard_pipes() -> Result<
    (
        tokio::net::unix::pipe::Receiver,
        tokio::net::unix::pipe::Sender,
    ),
    BenchError,
> {
    use std::os::fd::AsFd;
    let pipe = |e| BenchError::io("stdin and stdout must be pipes", e);
    let stdin = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map_err(pipe)?;
    let stdout = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(pipe)?;
    let reader =
        tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(stdin)).map_err(pipe)?;
    let writer =
        tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(stdout)).map_err(pipe)?;
    Ok((reader, writer))
}

/// Copies through one fixed buffer, each read written at once.
async fn copy_async(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
) -> std::io::Result<()> {
    let mut buffer = vec![0u8; BUFFER];
    loop {
        let read = from.read(&mut buffer).await?;
        if read == 0 {
            return Ok(());
        }
        to.write_all(&buffer[..read]).await?;
        to.flush().await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn copy_async_passes_every_byte_in_order() {
        let (mut near, far) = tokio::io::duplex(16);
        let (mut out_near, out_far) = tokio::io::duplex(1 << 20);
        let copying = tokio::spawn(copy_async(far, out_far));
        let text: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let writer = {
            let text = text.clone();
            tokio::spawn(async move {
                near.write_all(&text).await.unwrap();
                drop(near);
            })
        };
        let mut copied = Vec::new();
        out_near.read_to_end(&mut copied).await.unwrap();
        writer.await.unwrap();
        copying.await.unwrap().unwrap();
        assert_eq!(copied, text);
    }
}
