//! The id under which the gateway relays a server's task to its client:
//! the server's name, the server's incarnation (the supervisor's count of
//! its sessions, see [`Supervisor::incarnation`]) and the server's own id
//! for the task, sealed in one opaque string.
//!
//! The id carries everything a later `tasks/get`, `tasks/update` or
//! `tasks/cancel` needs to reach the task: no table is kept, so the task
//! outlives the client's connection, and any replica of the gateway with
//! the same config routes it. The server it names is still checked against
//! the client's view, as a call is. The id is `t1.` followed by three
//! dot-separated fields: the server's name and its own id in unpadded
//! base64url, the incarnation in decimal; only `[A-Za-z0-9_.-]`, so it is a
//! valid `Mcp-Name` header value.
//!
//! [`Supervisor::incarnation`]: crate::supervisor::Supervisor::incarnation

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// What every relayed id starts with (the `1` is the format's version).
const PREFIX: &str = "t1.";

/// The longest id the gateway reads: a task id from a client is bounded
/// before it is decoded.
const MAX_LEN: usize = 4096;

/// A server's task, as the gateway's client names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelayedTaskId {
    /// The server that runs the task.
    pub(crate) server: String,
    /// The server's incarnation when it created the task.
    pub(crate) incarnation: u64,
    /// The server's own id for the task.
    pub(crate) own: String,
}

impl RelayedTaskId {
    /// The id the client sees.
    pub(crate) fn encode(&self) -> String {
        format!(
            "{PREFIX}{}.{}.{}",
            URL_SAFE_NO_PAD.encode(self.server.as_bytes()),
            self.incarnation,
            URL_SAFE_NO_PAD.encode(self.own.as_bytes()),
        )
    }

    /// The task a client's `id` names; `None` when it is not an id this
    /// gateway gave out (then it is an unknown task, -32602).
    pub(crate) fn decode(id: &str) -> Option<Self> {
        if id.len() > MAX_LEN {
            return None;
        }
        let mut fields = id.strip_prefix(PREFIX)?.split('.');
        let (server, incarnation, own) = (fields.next()?, fields.next()?, fields.next()?);
        if fields.next().is_some() {
            return None;
        }
        let text = |field: &str| {
            let bytes = URL_SAFE_NO_PAD.decode(field).ok()?;
            String::from_utf8(bytes).ok()
        };
        let server = text(server).filter(|server| !server.is_empty())?;
        let own = text(own).filter(|own| !own.is_empty())?;
        // Only the digits `encode` writes: no sign, no leading zeros.
        if incarnation.starts_with(['+', '-'])
            || (incarnation.len() > 1 && incarnation.starts_with('0'))
        {
            return None;
        }
        let incarnation = incarnation.parse().ok()?;
        Some(Self {
            server,
            incarnation,
            own,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relayed(server: &str, incarnation: u64, own: &str) -> RelayedTaskId {
        RelayedTaskId {
            server: server.to_owned(),
            incarnation,
            own: own.to_owned(),
        }
    }

    #[test]
    fn an_id_names_the_server_its_incarnation_and_the_server_s_own_id() {
        for task in [
            relayed("reports", 1, "5f0c6a4e-2b7d-4c1e-9a53-0d8e7f6b1a2c"),
            relayed("a.b", u64::MAX, "id.with.dots and spaces/é"),
            relayed("x", 0, "t"),
        ] {
            let id = task.encode();
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)),
                "{id} is a header value"
            );
            assert_eq!(RelayedTaskId::decode(&id), Some(task));
        }
        let one = relayed("reports", 1, "task-1").encode();
        assert_ne!(one, relayed("reports", 2, "task-1").encode());
        assert_ne!(one, relayed("report", 1, "task-1").encode());
    }

    #[test]
    fn anything_else_is_no_task_of_the_gateway() {
        let good = relayed("reports", 3, "task-1").encode();
        let [server, incarnation, own] = ["reports", "3", "task-1"].map(|field| match field {
            "3" => "3".to_owned(),
            other => URL_SAFE_NO_PAD.encode(other),
        });
        assert_eq!(good, format!("t1.{server}.{incarnation}.{own}"));
        for id in [
            "task-1".to_owned(),
            "tasks-conformance-nonexistent-12345".to_owned(),
            format!("t2.{server}.3.{own}"),
            format!("t1.{server}.3"),
            format!("t1.{server}.3.{own}.more"),
            format!("t1.{server}.-3.{own}"),
            format!("t1.{server}.+3.{own}"),
            format!("t1.{server}.03.{own}"),
            format!("t1.{server}.x.{own}"),
            format!("t1.{server}.99999999999999999999.{own}"),
            format!("t1..3.{own}"),
            format!("t1.{server}.3."),
            format!("t1.{server}=.3.{own}"),
            format!("t1.{}.3.{own}", URL_SAFE_NO_PAD.encode([0xff, 0xfe])),
            format!("t1.{server}.3.{}", "A".repeat(MAX_LEN)),
            String::new(),
        ] {
            assert_eq!(RelayedTaskId::decode(&id), None, "{id}");
        }
    }
}
