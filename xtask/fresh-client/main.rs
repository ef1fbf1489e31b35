//! A new user's first program: a Cargo project of its own that depends on
//! `mcpdisco-client` with only the `stdio` feature and lists a server's
//! tools. `cargo xtask test` writes it into `target/fresh-client`, builds
//! it and runs it against the example server (`xtask/src/fresh_client.rs`).

use mcpdisco_client::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = std::env::args().nth(1).ok_or("usage: fresh-client SERVER")?;
    // Connect, list, print: the short form of the crate's docs.
    let session = Client::stdio(server).args(["stdio"]).connect().await?;
    for tool in &session.list_tools().await? {
        println!("{}", tool?.name);
    }
    session.close().await?;
    Ok(())
}
