//! [`Approvals`]: the approval transaction over a folder of manifests and
//! a pin store. Export writes what servers offer for review; approving
//! pins what a server offers now and moves its manifests to `approved/`;
//! revoking moves them back and unpins. Every step says what it did in a
//! typed outcome, with the warnings of what it passed over.

use std::io;
use std::path::PathBuf;

use mcpdisco_capability::Manifest;
use mcpdisco_client::session::ListKind;
use mcpdisco_protocol::raw::ToolView;

use super::dir::{CapabilityDir, Formats, Listed, Stage};
use super::introspect::OutputTypes;
use super::pins::{items_of, scope_of, tools_of_stems, unpin_tool_stem};
use super::store::{PinStore, PinStoreError};
use super::warning::Warning;
use crate::config::ServerConfig;
use crate::report::{DiscoveryReport, ServerStatus};

/// The approval workflow of a host: its manifests folder and its pins.
#[derive(Debug)]
pub struct Approvals {
    dir: CapabilityDir,
    pins: PinStore,
}

/// What [`Approvals::export`] wrote.
#[derive(Debug, Clone)]
pub struct Exported {
    /// One manifest per tool, as written to `pending/`.
    pub manifests: Vec<Manifest>,
    /// The files written.
    pub files: Vec<PathBuf>,
    /// Items that are not tools, passed over.
    pub warnings: Vec<Warning>,
}

/// What [`Approvals::approve`] or [`Approvals::revoke`] did.
#[derive(Debug, Clone)]
pub struct ApprovalOutcome {
    /// The server.
    pub server: String,
    /// The manifests approved (moved to `approved/`) or revoked (moved back
    /// to `pending/`); none when there was nothing to approve or revoke.
    pub manifests: Vec<Listed>,
    /// The pin keys pinned (approval) or removed (revocation).
    pub pins: Vec<String>,
    /// The lock file the pins are in.
    pub lock: PathBuf,
    /// What was passed over (the fleet's shared pins).
    pub warnings: Vec<Warning>,
}

/// Why an approval step failed (nothing was approved or pinned then), and
/// what it had passed over until it did.
#[derive(Debug, thiserror::Error)]
#[error("{failure}")]
pub struct ApprovalError {
    /// Why it failed.
    pub failure: ApprovalFailure,
    /// The warnings of the step until it failed.
    pub warnings: Vec<Warning>,
}

/// Why an approval step failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalFailure {
    /// The manifests folder could not be read or written.
    #[error("{what} {}: {source}", dir.display())]
    Dir {
        /// What was being done (`cannot read manifests in`, …).
        what: &'static str,
        /// The folder.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The pins could not be read or written.
    #[error(transparent)]
    Pins(#[from] PinStoreError),
    /// The server could not be discovered now: approval pins what it
    /// offers now.
    #[error(
        "cannot approve '{server}': approval pins what the server offers now, and discovering it failed: {why}. Nothing was approved or pinned."
    )]
    NotDiscovered {
        /// The server.
        server: String,
        /// Why (masked).
        why: String,
    },
    /// The server no longer offers tools being approved (their manifest
    /// file stems).
    #[error(
        "cannot approve '{server}': it no longer offers {} (export again to review what it offers now). Nothing was approved or pinned.",
        quoted(missing)
    )]
    NoLongerOffered {
        /// The server.
        server: String,
        /// The file stems of the tools it no longer offers.
        missing: Vec<String>,
    },
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl From<ApprovalFailure> for ApprovalError {
    fn from(failure: ApprovalFailure) -> Self {
        Self {
            failure,
            warnings: Vec::new(),
        }
    }
}

impl From<PinStoreError> for ApprovalError {
    fn from(error: PinStoreError) -> Self {
        ApprovalFailure::Pins(error).into()
    }
}

/// Keeps `warnings` with a failure.
trait WithWarnings<T> {
    fn keeping(self, warnings: &mut Vec<Warning>) -> Result<T, ApprovalError>;
}

impl<T, E: Into<ApprovalError>> WithWarnings<T> for Result<T, E> {
    fn keeping(self, warnings: &mut Vec<Warning>) -> Result<T, ApprovalError> {
        self.map_err(|error| {
            let mut error = error.into();
            error.warnings.splice(0..0, std::mem::take(warnings));
            error
        })
    }
}

impl Approvals {
    /// The workflow over the manifests in `dir` and the pins in `pins`.
    pub fn new(dir: CapabilityDir, pins: PinStore) -> Self {
        Self { dir, pins }
    }

    /// The manifests folder.
    pub fn dir(&self) -> &CapabilityDir {
        &self.dir
    }

    /// The pins.
    pub fn pins(&self) -> &PinStore {
        &self.pins
    }

    fn dir_error(&self, what: &'static str) -> impl FnOnce(io::Error) -> ApprovalFailure + '_ {
        move |source| ApprovalFailure::Dir {
            what,
            dir: self.dir.root().to_owned(),
            source,
        }
    }

    /// Writes one manifest per tool of every server of `report` (each
    /// configured in `servers`) to `pending/`, in `formats`, with the
    /// output types `outputs` learnt for tools that declare none. An item
    /// that is not a tool is passed over with a warning.
    pub fn export(
        &self,
        servers: &[ServerConfig],
        report: &DiscoveryReport,
        outputs: &OutputTypes,
        formats: Formats,
    ) -> Result<Exported, ApprovalError> {
        let mut manifests = Vec::new();
        let mut warnings = Vec::new();
        for server_report in &report.servers {
            let Some(server) = servers.iter().find(|s| s.name == server_report.name) else {
                continue;
            };
            for tool in server_report.items(ListKind::Tools) {
                match super::manifest_of(server, tool) {
                    Ok(mut manifest) => {
                        if manifest.output.is_none() {
                            manifest.output =
                                outputs.get(&manifest.server, &manifest.tool).cloned();
                        }
                        manifests.push(manifest);
                    }
                    Err(error) => warnings.push(Warning::NotATool {
                        server: server.name.clone(),
                        error: match ToolView::of(tool).name() {
                            Some(name) => format!("'{name}': {error}"),
                            None => error.to_string(),
                        },
                    }),
                }
            }
        }
        let files = self
            .dir
            .export(&manifests, formats)
            .map_err(self.dir_error("cannot write to"))
            .keeping(&mut warnings)?;
        Ok(Exported {
            manifests,
            files,
            warnings,
        })
    }

    /// What awaits approval.
    pub fn pending(&self) -> Result<Vec<Listed>, ApprovalError> {
        Ok(self
            .dir
            .list(Stage::Pending)
            .map_err(self.dir_error("cannot read"))?)
    }

    /// Approves `server`'s pending manifests (all, or those of `tools`),
    /// whatever format they were exported in: pins each tool as `report`
    /// (a discovery of the server made now) finds it, since the manifest is
    /// what the user reviewed and the pin is what the server says at
    /// approval, then moves the manifests. A whole server's approval also
    /// pins its prompts, resources, templates and skills. When the server
    /// was not discovered, or no longer offers a tool being approved,
    /// nothing is approved or pinned.
    pub async fn approve(
        &self,
        server: &ServerConfig,
        tools: &[String],
        report: &DiscoveryReport,
    ) -> Result<ApprovalOutcome, ApprovalError> {
        let chosen = self
            .dir
            .selected(Stage::Pending, &server.name, tools)
            .map_err(self.dir_error("cannot read manifests in"))?;
        if chosen.is_empty() {
            return Ok(self.outcome(server, Vec::new(), Vec::new(), Vec::new()));
        }
        let found = report.server(&server.name);
        let server_report = found
            .filter(|r| r.status == ServerStatus::Ready)
            .ok_or_else(|| ApprovalFailure::NotDiscovered {
                server: server.name.clone(),
                why: found
                    .and_then(|r| r.error.as_ref())
                    .map_or_else(|| "it was not discovered".to_owned(), |e| e.message.clone()),
            })?;
        let stems: Vec<String> = chosen.into_iter().map(|listed| listed.tool).collect();
        let offered = tools_of_stems(server_report, &stems).map_err(|missing| {
            ApprovalFailure::NoLongerOffered {
                server: server.name.clone(),
                missing,
            }
        })?;
        let mut warnings = Vec::new();
        let mut pins = self
            .pins
            .load_into(&mut warnings)
            .await
            .keeping(&mut warnings)?;
        let scope = scope_of(server);
        let mut keys: Vec<String> = offered
            .iter()
            .filter_map(|tool| pins.pin(&scope, tool))
            .collect();
        if tools.is_empty() {
            keys.extend(pins.pin_others(&scope, items_of(server_report)));
        }
        let moved = self
            .dir
            .approve(&server.name, tools)
            .map_err(self.dir_error("cannot move manifests in"))
            .keeping(&mut warnings)?;
        self.save(&pins, &mut warnings).await?;
        Ok(self.outcome(server, moved, keys, warnings))
    }

    /// Writes `pins`, their warnings added to `warnings` (and kept with a
    /// failure).
    async fn save(
        &self,
        pins: &mcpdisco_capability::PinFile,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), ApprovalError> {
        let mut saving = Vec::new();
        let saved = self.pins.save_into(pins, &mut saving).await;
        warnings.append(&mut saving);
        saved.keeping(warnings)
    }

    /// Takes `server`'s approval back (all its manifests, or those of
    /// `tools`): moves them to `pending/` and unpins their tools; a whole
    /// server's revocation unpins everything of it.
    pub async fn revoke(
        &self,
        server: &ServerConfig,
        tools: &[String],
    ) -> Result<ApprovalOutcome, ApprovalError> {
        let moved = self
            .dir
            .revoke(&server.name, tools)
            .map_err(self.dir_error("cannot move manifests in"))?;
        let mut warnings = Vec::new();
        let mut pins = self
            .pins
            .load_into(&mut warnings)
            .await
            .keeping(&mut warnings)?;
        let mut keys: Vec<String> = moved
            .iter()
            .filter_map(|entry| unpin_tool_stem(&mut pins, server, &entry.tool))
            .collect();
        if tools.is_empty() {
            keys.extend(pins.unpin_others(&scope_of(server)));
        }
        self.save(&pins, &mut warnings).await?;
        Ok(self.outcome(server, moved, keys, warnings))
    }

    fn outcome(
        &self,
        server: &ServerConfig,
        manifests: Vec<Listed>,
        pins: Vec<String>,
        warnings: Vec<Warning>,
    ) -> ApprovalOutcome {
        ApprovalOutcome {
            server: server.name.clone(),
            manifests,
            pins,
            lock: self.pins.lock().to_owned(),
            warnings,
        }
    }
}
