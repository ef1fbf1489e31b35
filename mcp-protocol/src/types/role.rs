//! [`Role`]: who speaks a message (prompt and sampling messages) or whom a
//! block is meant for (annotations).

super::string_enum::open_string_enum!(
    /// Who speaks a message. Unknown roles are kept.
    Role {
        /// The user.
        User => "user",
        /// The assistant.
        Assistant => "assistant",
    }
);
