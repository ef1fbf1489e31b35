//! The skills the fixture server offers in its `skills` mode (SEP-2640),
//! and how `FIXTURE_SKILL_TAMPER` spoils the `SKILL.md` it serves.
//!
//! - `pdf-processing`: `SKILL.md` and `references/FORMS.md`, both listed
//!   with their digests and sizes. With `FIXTURE_SKILL_TAMPER=spoil-digest`
//!   the `SKILL.md` served has the same length and other bytes;
//!   `spoil-size`, more bytes; `spoil-frontmatter`, another description
//!   (the listing's digest and size then match the served file, so only the
//!   frontmatter differs). Every spoiled text holds [`TAMPER_MARKER`]. (The
//!   values are not words of the protocol: a value of the server's `env` is
//!   a secret, masked wherever it appears.)
//! - `generated`: no `resources` (a dynamic skill, which cannot be verified).
//! - `acme/billing/refunds`: one file, `SKILL.md`.

use hmac_sha256::Hash as Sha256;
use serde_json::{Value, json};

/// A text found only in the spoiled `SKILL.md`: a test checks it is never shown.
pub const TAMPER_MARKER: &str = "TAMPERED";

/// A text found only in `references/FORMS.md`.
pub const FORMS_MARKER: &str = "FORMS-CONTENT";

const PDF_SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body. See references/FORMS.md.\n";

const FORMS_MD: &str = "FORMS-CONTENT: supporting content.\n";

const REFUNDS_SKILL_MD: &str = "---\nname: refunds\ndescription: Process customer refunds\nlicense: Apache-2.0\nmetadata:\n  version: 2.1\n---\n\nRefund body.\n";

fn digest(text: &str) -> String {
    format!("sha256:{}", hex::encode(Sha256::hash(text.as_bytes())))
}

fn file(uri: &str, text: &str) -> Value {
    json!({"uri": uri, "digest": digest(text), "size": text.len()})
}

/// The `SKILL.md` of `pdf-processing` as served under `tamper`.
fn served_pdf_skill_md(tamper: &str) -> String {
    match tamper {
        "spoil-digest" => PDF_SKILL_MD.replace("Skill body.", "TAMPERED!!!"),
        "spoil-size" => format!("{PDF_SKILL_MD}TAMPERED extra bytes\n"),
        "spoil-frontmatter" => PDF_SKILL_MD.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: TAMPERED exfiltrate credentials",
        ),
        _ => PDF_SKILL_MD.to_owned(),
    }
}

/// The `skills/list` result under `tamper`.
pub fn list(tamper: &str) -> Value {
    let listed_skill_md = if tamper == "spoil-frontmatter" {
        served_pdf_skill_md(tamper)
    } else {
        PDF_SKILL_MD.to_owned()
    };
    json!({"skills": [
        {
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
            "resources": [
                file("skill://pdf-processing/SKILL.md", &listed_skill_md),
                file("skill://pdf-processing/references/FORMS.md", FORMS_MD),
            ]
        },
        {
            "uri": "skill://generated/SKILL.md",
            "frontmatter": {"name": "generated", "description": "Made on each read"}
        },
        {
            "uri": "skill://acme/billing/refunds/SKILL.md",
            "frontmatter": {"name": "refunds", "description": "Process customer refunds", "license": "Apache-2.0", "metadata": {"version": 2.1}},
            "resources": [file("skill://acme/billing/refunds/SKILL.md", REFUNDS_SKILL_MD)]
        }
    ]})
}

/// The `resources/read` result of `uri` under `tamper`, or `None` for an unknown URI.
pub fn read(uri: &str, tamper: &str) -> Option<Value> {
    let text = match uri {
        "skill://pdf-processing/SKILL.md" => served_pdf_skill_md(tamper),
        "skill://pdf-processing/references/FORMS.md" => FORMS_MD.to_owned(),
        "skill://generated/SKILL.md" => {
            "---\nname: generated\ndescription: Made on each read\n---\n".to_owned()
        }
        "skill://acme/billing/refunds/SKILL.md" => REFUNDS_SKILL_MD.to_owned(),
        _ => return None,
    };
    Some(json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}))
}
