//! `skill load`: one skill's files, each verified against its entry before
//! anything of it is shown.

use std::process::ExitCode;

use mcpdisco::config::ServerConfig;
use mcpdisco::skills::{LoadedSkill, SkillError, find_skill, load_skill};
use mcpdisco_client::session::Session;

use crate::context::Context;
use crate::exit;
use crate::opened::{Opened, open};
use crate::output::print_json;
use crate::render;

/// `skill load SERVER NAME`: lists the server's skills afresh, finds `name`,
/// and loads it. Prints the files (`--json`: the entry and the files) only
/// when every one passed; otherwise the error naming the file, exit 2.
pub async fn load(context: &Context<'_>, server: &ServerConfig, name: &str) -> ExitCode {
    let Opened {
        session,
        span,
        masker,
    } = match open(context, server).await {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let loaded = span.run(find_and_load(&session, name)).await;
    let _ = session.close().await;
    drop(span);
    match loaded.map_err(|error| error.masked(&masker)) {
        Ok(skill) => {
            if context.global.json {
                print_json(&skill);
            } else {
                print!("{}", human(&skill));
            }
            ExitCode::from(exit::OK)
        }
        Err(error @ (SkillError::NotFound { .. } | SkillError::Ambiguous { .. })) => {
            eprintln!("error: {error}");
            ExitCode::from(exit::USAGE)
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(exit::SERVER_FAILED)
        }
    }
}

async fn find_and_load(session: &Session, name: &str) -> Result<LoadedSkill, SkillError> {
    // A malformed entry cannot be loaded: it is left out of the search.
    let skills = session.list_skills().await?.into_valid();
    let entry = find_skill(session.name(), &skills, name)?;
    load_skill(session, &entry).await
}

/// Each file under a line naming it, its size and digest; text as it is
/// (control characters but lines and tabs shown as `�`), a blob by its size.
fn human(skill: &LoadedSkill) -> String {
    let mut out = String::new();
    for file in &skill.files {
        out.push_str(&format!(
            "==> {} ({} bytes, {} verified) <==\n",
            render::printable_str(&file.uri),
            file.size,
            file.digest
        ));
        match &file.text {
            Some(text) => {
                out.push_str(&render::printable_lines(text));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str("(binary; --json shows it in base64)\n"),
        }
    }
    out
}
