//! The values of a `server.json`'s inputs: fixed values, the caller's,
//! defaults, `{variable}` templates, and `${env:NAME}` references for the
//! required ones, with the variables they need noted in [`Needs`].

use std::collections::BTreeMap;

use super::options::ResolveOptions;
use super::types::{Argument, Input, KeyValueInput};

/// The environment variables a resolution refers to.
#[derive(Debug, Default)]
pub(super) struct Needs {
    /// Those that must be set, in the order met.
    pub required_env: Vec<String>,
    /// Of all the variables named, those holding secrets.
    pub secret_env: Vec<String>,
}

impl Needs {
    /// `name` must be set; a secret when `secret`.
    pub fn require(&mut self, name: &str, secret: bool) {
        if !self.required_env.iter().any(|n| n == name) {
            self.required_env.push(name.to_owned());
        }
        if secret {
            self.secret(name);
        }
    }

    /// `name` holds a secret.
    pub fn secret(&mut self, name: &str) {
        if !self.secret_env.iter().any(|n| n == name) {
            self.secret_env.push(name.to_owned());
        }
    }
}

/// An environment variable name for an input labelled `label`.
fn env_name(label: &str) -> String {
    let name = crate::config::upper_snake(label.trim_start_matches('-'));
    if name.starts_with(|c: char| c.is_ascii_digit()) || name.is_empty() {
        format!("MCP_{name}")
    } else {
        name
    }
}

/// The value of an input: its own fixed value (variables filled; the
/// schema says a set value is not for users to change), else the caller's,
/// its default, or a `${env:…}` reference when it is required. `None` when
/// it is optional and has no value.
pub(super) fn input_value(
    label: &str,
    input: &Input,
    options: &ResolveOptions,
    needs: &mut Needs,
) -> Option<String> {
    if let Some(value) = &input.value {
        return Some(fill_variables(value, &input.variables, options, needs));
    }
    if let Some(given) = options.values.get(label) {
        return Some(given.clone());
    }
    if let Some(default) = &input.default {
        return Some(default.clone());
    }
    if input.is_required {
        let var = env_name(label);
        needs.require(&var, input.is_secret);
        return Some(format!("${{env:{var}}}"));
    }
    None
}

/// `{name}` references in `text` replaced by the variables' values; a
/// variable without one stays as written.
pub(super) fn fill_variables(
    text: &str,
    variables: &BTreeMap<String, Input>,
    options: &ResolveOptions,
    needs: &mut Needs,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                let value = match variables.get(name) {
                    Some(input) => input_value(name, input, options, needs),
                    None => options.values.get(name).cloned(),
                };
                match value {
                    Some(value) => out.push_str(&value),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The `{name}`s of a template, in order.
pub(super) fn template_variables(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        names.push(&after[..close]);
        rest = &after[close + 1..];
    }
    names
}

pub(super) fn arguments(
    arguments: &[Argument],
    options: &ResolveOptions,
    needs: &mut Needs,
) -> Vec<String> {
    let mut out = Vec::new();
    for argument in arguments {
        match argument.kind.as_str() {
            "named" => {
                let Some(flag) = &argument.name else { continue };
                if argument.input.format.as_deref() == Some("boolean") {
                    // A boolean flag stands alone when true and is left out otherwise.
                    if input_value(flag, &argument.input, options, needs).as_deref() == Some("true")
                    {
                        out.push(flag.clone());
                    }
                    continue;
                }
                match input_value(flag, &argument.input, options, needs) {
                    Some(value) => {
                        out.push(flag.clone());
                        out.push(value);
                    }
                    // A named argument with no value at all is a bare flag.
                    None if argument.input.value.is_none()
                        && argument.input.default.is_none()
                        && !argument.input.is_required => {}
                    None => out.push(flag.clone()),
                }
            }
            _ => {
                let label = argument.value_hint.as_deref().unwrap_or("argument");
                if let Some(value) = input_value(label, &argument.input, options, needs) {
                    out.push(value);
                }
            }
        }
    }
    out
}

pub(super) fn environment(
    variables: &[KeyValueInput],
    options: &ResolveOptions,
    needs: &mut Needs,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    for variable in variables {
        if variable.input.is_secret {
            needs.secret(&variable.name);
        }
        let value = if variable.input.is_required
            && variable.input.value.is_none()
            && !options.values.contains_key(&variable.name)
        {
            needs.require(&variable.name, variable.input.is_secret);
            Some(format!("${{env:{}}}", variable.name))
        } else {
            input_value(&variable.name, &variable.input, options, needs)
        };
        if let Some(value) = value {
            env.push((variable.name.clone(), value));
        }
    }
    env
}
