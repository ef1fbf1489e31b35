//! Words of names and descriptions, for the tool index: split at anything
//! that is not a letter or digit, at `camelCase` and `HTTPServer` case
//! changes and between letters and digits; lowercased, with a light
//! plural stemming (`issues` → `issue`, `entries` → `entry`).

/// The longest word kept (longer ones are cut).
const MAX_WORD_CHARS: usize = 64;

/// The words of `text`, in order, repeats kept.
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut run: Vec<char> = Vec::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() {
            run.push(c);
        } else if !run.is_empty() {
            split_run(&run, &mut words);
            run.clear();
        }
    }
    words
}

/// Splits one run of letters and digits at case changes and at
/// letter/digit boundaries.
fn split_run(run: &[char], words: &mut Vec<String>) {
    let mut start = 0;
    for i in 1..run.len() {
        let (previous, current) = (run[i - 1], run[i]);
        let next_is_lower = run.get(i + 1).is_some_and(|c| c.is_lowercase());
        let boundary = (previous.is_lowercase() && current.is_uppercase())
            || (previous.is_uppercase() && current.is_uppercase() && next_is_lower)
            || (previous.is_alphabetic() != current.is_alphabetic());
        if boundary {
            words.push(normalise(&run[start..i]));
            start = i;
        }
    }
    words.push(normalise(&run[start..]));
}

/// One word lowercased, cut to [`MAX_WORD_CHARS`], plural stemmed.
fn normalise(chars: &[char]) -> String {
    let word: String = chars
        .iter()
        .take(MAX_WORD_CHARS)
        .flat_map(|c| c.to_lowercase())
        .collect();
    stem(word)
}

/// A light plural stemming, the same for tools and queries.
fn stem(mut word: String) -> String {
    let len = word.chars().count();
    if len > 4 && word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if len > 3
        && word.ends_with('s')
        && !(word.ends_with("ss") || word.ends_with("us") || word.ends_with("is"))
    {
        word.pop();
    }
    word
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn snake_camel_and_kebab_case_split_into_lowercase_words() {
        assert_eq!(words("create_issue"), ["create", "issue"]);
        assert_eq!(words("createIssue"), ["create", "issue"]);
        assert_eq!(words("create-issue"), ["create", "issue"]);
        assert_eq!(words("CreateIssue"), ["create", "issue"]);
        assert_eq!(words("github__create_issue"), ["github", "create", "issue"]);
        assert_eq!(
            words("parseHTTPServerURL"),
            ["parse", "http", "server", "url"]
        );
    }

    #[test]
    fn letters_and_digits_are_separate_words() {
        assert_eq!(words("base64Encode"), ["base", "64", "encode"]);
        assert_eq!(words("s3_get_object"), ["s", "3", "get", "object"]);
        assert_eq!(words("v2"), ["v", "2"]);
    }

    #[test]
    fn punctuation_separates_and_plurals_are_stemmed() {
        assert_eq!(
            words("Lists the repository's open issues, (entries)."),
            ["list", "the", "repository", "s", "open", "issue", "entry"]
        );
        assert_eq!(
            words("status class address"),
            ["status", "class", "address"]
        );
        assert!(words("  --__  ").is_empty());
    }

    #[test]
    fn words_outside_ascii_are_kept_and_long_words_cut() {
        assert_eq!(words("Größe_ändern"), ["größe", "ändern"]);
        assert_eq!(words(&"a".repeat(200))[0].len(), 64);
    }
}
