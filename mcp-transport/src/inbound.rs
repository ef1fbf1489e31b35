//! [`Inbound`]: what a transport's `receive` yields.

use mcpdisco_protocol::{Message, RequestId};

/// One thing a transport hears about its connection: a message from the
/// server, or word that the answer to one request will never come.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// A message the server sent.
    Message(Message),
    /// The answer to request `id` will never come: the stream that was to
    /// carry it broke and cannot be resumed, or the server ended it without
    /// the answer. The connection itself lives on; the session fails that
    /// request at once (as sent, then lost) instead of waiting out its timeout.
    AnswerLost {
        /// The request whose answer is lost.
        id: RequestId,
        /// Why, for the person reading the error.
        reason: String,
    },
}

impl Inbound {
    /// The message, if this is one.
    pub fn into_message(self) -> Option<Message> {
        match self {
            Inbound::Message(message) => Some(message),
            Inbound::AnswerLost { .. } => None,
        }
    }

    /// Word that request `id`'s answer is lost, for `reason`.
    pub fn answer_lost(id: RequestId, reason: impl Into<String>) -> Self {
        Inbound::AnswerLost {
            id,
            reason: reason.into(),
        }
    }
}

impl From<Message> for Inbound {
    fn from(message: Message) -> Self {
        Inbound::Message(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::Notification;

    #[test]
    fn only_a_message_is_a_message() {
        let message = Message::Notification(Notification {
            method: "n".into(),
            params: None,
        });
        assert_eq!(Inbound::from(message.clone()).into_message(), Some(message));
        assert_eq!(
            Inbound::answer_lost(RequestId::from(1), "broke").into_message(),
            None
        );
    }
}
