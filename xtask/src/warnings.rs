//! The warning gate of the build steps: a cargo command run with
//! `--message-format json --color never`, its warnings counted from the
//! compiler's JSON messages (their `level`), not from the look of its
//! text, which `CARGO_TERM_COLOR=always` or a new layout would change.
//! Cargo's own warnings (a manifest key, a profile) have no JSON message:
//! they are counted from its stderr, colour codes stripped first. The
//! rendered diagnostics are shown as cargo would show them.

use std::process::Command;
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;

use crate::process::{self, Finished, Stream};
use crate::tally::strip_ansi;

/// The arguments that make a cargo build's messages JSON and its text
/// plain; they go after the subcommand.
pub const JSON_MESSAGES: &[&str] = &["--message-format", "json", "--color", "never"];

/// One JSON message of cargo's (only what the gate reads).
#[derive(Debug, Deserialize)]
struct CargoMessage {
    reason: String,
    #[serde(default)]
    message: Option<Diagnostic>,
}

/// A compiler diagnostic inside a `compiler-message`.
#[derive(Debug, Deserialize)]
struct Diagnostic {
    level: String,
    #[serde(default)]
    rendered: Option<String>,
}

/// Counts the warnings of one cargo command's output, line by line.
#[derive(Debug, Default)]
pub struct WarningGate {
    warnings: u64,
}

impl WarningGate {
    /// Reads one output line; returns the text to show for it (a
    /// diagnostic's rendering, a stderr line), or `None` for cargo's other
    /// JSON messages (artifacts, build scripts).
    pub fn feed(&mut self, stream: Stream, line: &str) -> Option<String> {
        match stream {
            Stream::Stderr => {
                if is_cargo_warning(&strip_ansi(line)) {
                    self.warnings += 1;
                }
                Some(line.to_owned())
            }
            Stream::Stdout if line.starts_with('{') => self.feed_json(line),
            Stream::Stdout => Some(line.to_owned()),
        }
    }

    fn feed_json(&mut self, line: &str) -> Option<String> {
        match serde_json::from_str::<CargoMessage>(line) {
            Ok(CargoMessage {
                reason,
                message: Some(diagnostic),
            }) if reason == "compiler-message" => {
                if diagnostic.level == "warning" {
                    self.warnings += 1;
                }
                diagnostic.rendered
            }
            Ok(_) => None,
            // A diagnostic too long for a line or in a shape this does not
            // know: it cannot be judged, so it counts against the build.
            Err(_) if line.contains("\"compiler-message\"") => {
                self.warnings += 1;
                Some(format!("(unreadable compiler message) {line}"))
            }
            Err(_) => None,
        }
    }

    /// The warnings counted so far.
    pub fn warnings(&self) -> u64 {
        self.warnings
    }
}

/// A warning line of cargo's own text: a diagnostic's first line, not the
/// per-crate summary (`warning: `x` (lib) generated 2 warnings`), which
/// the JSON format leaves out anyway.
fn is_cargo_warning(line: &str) -> bool {
    line.starts_with("warning") && !line.contains(" generated ")
}

/// How a gated cargo command ended, and the warnings it gave.
#[derive(Debug)]
pub struct Gated {
    /// How the command ended.
    pub finished: Finished,
    /// Warnings: the compiler's, clippy's and cargo's own.
    pub warnings: u64,
}

/// Runs a cargo command (its subcommand and arguments already given) with
/// [`JSON_MESSAGES`] appended, showing its diagnostics as text, and counts
/// its warnings.
pub fn run_gated(cmd: &mut Command, timeout: Duration) -> Result<Gated> {
    cmd.args(JSON_MESSAGES);
    let mut gate = WarningGate::default();
    let finished = process::run_quiet(cmd, timeout, |stream, line| {
        if let Some(text) = gate.feed(stream, line) {
            let text = text.trim_end();
            match stream {
                Stream::Stdout if !line.starts_with('{') => println!("{text}"),
                _ => eprintln!("{text}"),
            }
        }
    })?;
    Ok(Gated {
        finished,
        warnings: gate.warnings(),
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use super::*;

    const ESC: &str = "\u{1b}";

    fn compiler_message(level: &str) -> String {
        format!(
            r#"{{"reason":"compiler-message","package_id":"x","message":{{"rendered":"{level}: unused variable: `x`\n","level":"{level}","message":"unused variable","spans":[]}}}}"#
        )
    }

    #[test]
    fn counts_the_compilers_warnings_from_json_and_cargos_own_through_colour() {
        let mut gate = WarningGate::default();
        let shown = gate.feed(Stream::Stdout, &compiler_message("warning"));
        assert_eq!(shown.as_deref(), Some("warning: unused variable: `x`\n"));
        gate.feed(Stream::Stdout, &compiler_message("error"));
        gate.feed(
            Stream::Stdout,
            r#"{"reason":"compiler-artifact","package_id":"x","filenames":[]}"#,
        );
        gate.feed(
            Stream::Stdout,
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(gate.warnings(), 1);
        // Cargo's own warning, coloured as CARGO_TERM_COLOR=always prints it.
        let coloured = format!(
            "{ESC}[1m{ESC}[33mwarning{ESC}[0m{ESC}[1m:{ESC}[0m unused manifest key: package.x"
        );
        gate.feed(Stream::Stderr, &coloured);
        gate.feed(
            Stream::Stderr,
            &format!("{ESC}[1m{ESC}[92m   Compiling{ESC}[0m x v0.1.0"),
        );
        gate.feed(
            Stream::Stderr,
            "warning: `x` (bin \"x\") generated 1 warning",
        );
        assert_eq!(gate.warnings(), 2);
        // A diagnostic cut short cannot be read: it counts.
        gate.feed(
            Stream::Stdout,
            r#"{"reason":"compiler-message","message":{"rendered":"warn"#,
        );
        assert_eq!(gate.warnings(), 3);
    }

    /// A throwaway crate whose one binary has one unused variable.
    fn crate_with_a_warning() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-warning-gate-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"gate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
        )
        .unwrap();
        fs::write(dir.join("src/main.rs"), "fn main() { let x = 1; }\n").unwrap();
        dir
    }

    #[test]
    fn a_real_builds_warning_counts_with_colour_forced_on() {
        let dir = crate_with_a_warning();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(&dir)
            .args(["build", "--offline"])
            .env("CARGO_TERM_COLOR", "always")
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("RUSTC_WRAPPER");
        let gated = run_gated(&mut cmd, Duration::from_secs(120)).unwrap();
        let _ = fs::remove_dir_all(&dir);
        assert!(gated.finished.success(), "{:?}", gated.finished);
        assert_eq!(gated.warnings, 1);
    }
}
