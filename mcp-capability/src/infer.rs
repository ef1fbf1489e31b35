//! What a tool is about (domains) and what it does (categories), guessed from
//! the server's and the tool's names, refined by the tool's annotations.
//! Pure functions.

/// Vendors whose names mean a cloud domain.
const CLOUD_VENDORS: &[(&str, &str)] = &[
    ("aws", "cloud.aws"),
    ("amazon", "cloud.aws"),
    ("gcp", "cloud.gcp"),
    ("google-cloud", "cloud.gcp"),
    ("gcloud", "cloud.gcp"),
    ("azure", "cloud.azure"),
    ("cloudflare", "cloud.cloudflare"),
    ("digitalocean", "cloud.digitalocean"),
    ("heroku", "cloud.heroku"),
    ("vercel", "cloud.vercel"),
];

/// Words that say "MCP server" rather than what the server is about.
const NOISE: &[&str] = &[
    "mcp",
    "server",
    "servers",
    "modelcontextprotocol",
    "official",
];

const READ: &[&str] = &[
    "list", "get", "read", "fetch", "search", "find", "query", "describe", "show", "view",
    "lookup", "count", "check", "inspect", "download", "browse", "retrieve", "load",
];
const CREATE: &[&str] = &[
    "create", "add", "new", "insert", "post", "make", "register", "upload", "write", "publish",
    "generate",
];
const UPDATE: &[&str] = &[
    "update", "edit", "modify", "set", "patch", "rename", "move", "change", "put", "replace",
    "merge", "assign", "enable", "disable", "close", "reopen",
];
const DELETE: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "drop",
    "clear",
    "purge",
    "erase",
    "unregister",
];

/// The words of a name: snake_case, kebab-case, camelCase, dotted or
/// slashed, lowercased.
pub fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            current.push(c.to_ascii_lowercase());
        } else {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The domain of a server, from its name or package: the last path segment
/// without MCP noise (`modelcontextprotocol/github` → `github`), or a cloud
/// vendor's domain (`aws-s3-server` → `cloud.aws`).
pub fn extract_primary_domain(server: &str) -> String {
    let last = server
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(server);
    let words: Vec<String> = words(last)
        .into_iter()
        .filter(|w| !NOISE.contains(&w.as_str()))
        .collect();
    for (vendor, domain) in CLOUD_VENDORS {
        let vendor_words = self::words(vendor);
        if words
            .windows(vendor_words.len())
            .any(|window| window == vendor_words.as_slice())
        {
            return (*domain).to_owned();
        }
    }
    match words.as_slice() {
        [] => last.to_ascii_lowercase(),
        words => words.join("_"),
    }
}

/// What a tool works on, from its name without the verb, in the plural:
/// `list_issues` → `issues`, `get_pull_request` → `pull_requests`. Empty
/// when the name is only a verb.
pub fn extract_sub_domain(tool: &str) -> String {
    let mut words = words(tool);
    if words.first().is_some_and(|w| is_verb(w)) {
        words.remove(0);
    }
    if let Some(last) = words.last_mut() {
        *last = plural(last);
    }
    words.join("_")
}

/// The domains of a tool of a server: the server's, and the server's with
/// the tool's sub-domain (`["github", "github.issues"]`).
pub fn infer_domains(server: &str, tool: &str) -> Vec<String> {
    let primary = extract_primary_domain(server);
    let sub = extract_sub_domain(tool);
    if sub.is_empty() {
        vec![primary]
    } else {
        vec![primary.clone(), format!("{primary}.{sub}")]
    }
}

/// The categories of a tool from its name: `crud.read`, `crud.create`,
/// `crud.update` or `crud.delete` by its verb, plus `search` for a search.
pub fn infer_category(tool: &str) -> Vec<String> {
    infer_category_with(tool, None, None)
}

/// The categories, with the tool's `readOnlyHint` and `destructiveHint`
/// winning over the verb: read-only is `crud.read`; destructive and not a
/// create or an update is `crud.delete`.
pub fn infer_category_with(
    tool: &str,
    read_only: Option<bool>,
    destructive: Option<bool>,
) -> Vec<String> {
    let words = words(tool);
    let verb = words.iter().find(|w| is_verb(w)).map(String::as_str);
    let by_verb = match verb {
        Some(v) if READ.contains(&v) => Some("crud.read"),
        Some(v) if CREATE.contains(&v) => Some("crud.create"),
        Some(v) if UPDATE.contains(&v) => Some("crud.update"),
        Some(v) if DELETE.contains(&v) => Some("crud.delete"),
        _ => None,
    };
    let crud = if read_only == Some(true) {
        Some("crud.read")
    } else if destructive == Some(true) && !matches!(by_verb, Some("crud.create" | "crud.update")) {
        Some("crud.delete")
    } else {
        by_verb
    };
    let mut categories: Vec<String> = crud.into_iter().map(str::to_owned).collect();
    if words
        .iter()
        .any(|w| w == "search" || w == "find" || w == "query")
    {
        if categories.is_empty() {
            categories.push("crud.read".into());
        }
        categories.push("search".into());
    }
    categories
}

fn is_verb(word: &str) -> bool {
    [READ, CREATE, UPDATE, DELETE]
        .iter()
        .any(|verbs| verbs.contains(&word))
}

/// A noun's plural (English, the common cases).
fn plural(word: &str) -> String {
    if word.ends_with('s') || word.ends_with("data") || word.ends_with("info") {
        word.to_owned()
    } else if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        format!("{stem}ies")
    } else if word.ends_with("ch") || word.ends_with("sh") || word.ends_with('x') {
        format!("{word}es")
    } else {
        format!("{word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_examples_hold_exactly() {
        assert_eq!(
            extract_primary_domain("modelcontextprotocol/github"),
            "github"
        );
        assert_eq!(extract_primary_domain("aws-s3-server"), "cloud.aws");
        assert_eq!(extract_sub_domain("list_issues"), "issues");
        assert_eq!(extract_sub_domain("get_pull_request"), "pull_requests");
        assert_eq!(
            infer_domains("github", "list_issues"),
            vec!["github", "github.issues"]
        );
        assert_eq!(infer_category("list_issues"), vec!["crud.read"]);
        assert_eq!(infer_category("create_issue"), vec!["crud.create"]);
        assert_eq!(infer_category("search_code"), vec!["crud.read", "search"]);
        assert_eq!(infer_category("update_issue"), vec!["crud.update"]);
        assert_eq!(infer_category("delete_branch"), vec!["crud.delete"]);
    }

    #[test]
    fn names_in_every_case_style() {
        assert_eq!(words("getPullRequest"), vec!["get", "pull", "request"]);
        assert_eq!(words("get-pull-request"), vec!["get", "pull", "request"]);
        assert_eq!(words("files.read_file"), vec!["files", "read", "file"]);
        assert_eq!(extract_sub_domain("getPullRequest"), "pull_requests");
        assert_eq!(extract_sub_domain("list-repositories"), "repositories");
        assert_eq!(extract_sub_domain("search_branch"), "branches");
        assert_eq!(extract_sub_domain("echo"), "echos");
        assert_eq!(extract_sub_domain("list"), "");
        assert_eq!(infer_domains("time", "list"), vec!["time"]);
        assert_eq!(
            extract_primary_domain("@modelcontextprotocol/server-everything"),
            "everything"
        );
        assert_eq!(extract_primary_domain("mcp-server-time"), "time");
        assert_eq!(extract_primary_domain("google-cloud-run"), "cloud.gcp");
        assert_eq!(infer_category("files.removeFile"), vec!["crud.delete"]);
    }

    #[test]
    fn annotations_win_over_the_verb() {
        assert_eq!(
            infer_category_with("sync_repo", Some(true), None),
            vec!["crud.read"]
        );
        assert_eq!(
            infer_category_with("create_issue", Some(true), None),
            vec!["crud.read"]
        );
        assert_eq!(
            infer_category_with("run_job", None, Some(true)),
            vec!["crud.delete"]
        );
        assert_eq!(
            infer_category_with("update_issue", None, Some(true)),
            vec!["crud.update"]
        );
        assert!(infer_category_with("echo", None, None).is_empty());
    }
}
