//! [`Placement`]: which CPUs a client and its stdio server run on.
//!
//! On a virtual machine a pipe round trip is bimodal: about 2.5 µs when the
//! two processes share a CPU (the kernel switches straight from one to the
//! other) and about 60 µs when the peer sits on a CPU that has gone idle
//! (waking it costs an inter-processor interrupt). Left to the scheduler,
//! each run lands in one mode or the other at random, and ratios between
//! contenders measured in different modes mean nothing. So latency cases pin
//! both processes, and report each placement on its own.

use std::path::Path;

use nix::sched::{CpuSet, sched_setaffinity};
use nix::unistd::Pid;

use crate::BenchError;

/// Where the client and the server run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Both on CPU 0: the kernel hands the CPU from one to the other.
    Same,
    /// The client on CPU 0, the server on CPU 1: every message wakes the other CPU.
    Split,
}

impl Placement {
    /// The CPU of the client.
    pub const CLIENT_CPU: usize = 0;

    /// The CPU of the server.
    pub fn server_cpu(self) -> usize {
        match self {
            Placement::Same => 0,
            Placement::Split => 1,
        }
    }

    /// The command that starts `program` with `args` on the server's CPU
    /// (through `taskset`, which then becomes the server).
    pub fn server_command(self, program: &Path, args: &[String]) -> (String, Vec<String>) {
        let mut pinned = vec![
            "-c".to_owned(),
            self.server_cpu().to_string(),
            program.display().to_string(),
        ];
        pinned.extend(args.iter().cloned());
        ("taskset".to_owned(), pinned)
    }
}

/// Pins this process (and every thread it starts afterwards) to `cpu`.
pub fn pin_this_process(cpu: usize) -> Result<(), BenchError> {
    let mut set = CpuSet::new();
    set.set(cpu)
        .map_err(|e| BenchError::io(format!("CPU {cpu}"), std::io::Error::from(e)))?;
    sched_setaffinity(Pid::from_raw(0), &set)
        .map_err(|e| BenchError::io(format!("pinning to CPU {cpu}"), std::io::Error::from(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_command_goes_through_taskset() {
        let (program, args) =
            Placement::Split.server_command(Path::new("/b/bench-server"), &["stdio".to_owned()]);
        assert_eq!(program, "taskset");
        assert_eq!(args, ["-c", "1", "/b/bench-server", "stdio"]);
        assert_eq!(Placement::Same.server_cpu(), 0);
    }

    #[test]
    #[cfg(feature = "peers")]
    fn a_pinned_server_answers() {
        let (program, args) = Placement::Same.server_command(Path::new("cat"), &[]);
        let mut client = crate::raw_client::RawClient::spawn(Path::new(&program), &args).unwrap();
        assert_eq!(client.exchange("x").unwrap(), b"x");
        assert!(client.close().unwrap().success());
    }
}
