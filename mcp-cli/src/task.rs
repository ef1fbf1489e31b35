//! `mcp-cli call --task` and `mcp-cli task get|cancel`: tool calls that run
//! as tasks (extension `io.modelcontextprotocol/tasks`). The following,
//! polling and cancelling live in `mcpdisco-client`; this prints.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpdisco::config::ServerConfig;
use mcpdisco_client::protocol::types::{
    CallToolParams, CallToolResult, DetailedTask, Task, TaskStatus,
};
use mcpdisco_client::session::{RequestOptions, ToolCallStart};
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::cli::TaskCommand;
use crate::context::Context;
use crate::exit;
use crate::opened::{Opened, open};
use crate::output::print_json;
use crate::render;

/// `call SERVER TOOL --task [--detach]`: asks for a task; follows it (its
/// id said once on stderr, its status shown on a terminal), or prints its
/// id and leaves it running.
pub async fn call(
    context: &Context<'_>,
    server: &ServerConfig,
    tool: &str,
    arguments: Map<String, Value>,
    detach: bool,
) -> ExitCode {
    let Opened { session, span, .. } = match open(context, server).await {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let params = CallToolParams::new(tool, Some(arguments));
    let options = RequestOptions::new().task(true);
    let code = if detach {
        match span.run(session.start_tool_call(params, options)).await {
            Ok(ToolCallStart::Task(task)) => {
                print_task(context, &task);
                ExitCode::from(exit::OK)
            }
            Ok(ToolCallStart::Completed(result)) => result_code(context, server, tool, &result),
            Err(error) => failed(&error),
        }
    } else {
        let (sender, receiver) = watch::channel(None);
        let announced = announce_task(receiver.clone(), server.name.clone());
        let display = StatusLine::start(receiver);
        let result = span
            .run(session.call_tool(params, options.task_status(sender)))
            .await;
        announced.abort();
        drop(display);
        match result {
            Ok(result) => result_code(context, server, tool, &result),
            Err(error) => failed(&error),
        }
    };
    let _ = session.close().await;
    drop(span);
    code
}

/// `task get|cancel SERVER ID`.
pub async fn command(
    context: &Context<'_>,
    server: &ServerConfig,
    command: &TaskCommand,
) -> ExitCode {
    let Opened { session, span, .. } = match open(context, server).await {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let code = match command {
        TaskCommand::Get {
            id, wait: false, ..
        } => match span.run(session.get_task(id)).await {
            Ok(seen) => show(context, server, &seen),
            Err(error) => failed(&error),
        },
        TaskCommand::Get { id, wait: true, .. } => {
            let (sender, receiver) = watch::channel(None);
            let display = StatusLine::start(receiver);
            let options = RequestOptions::new().task_status(sender);
            let result = span.run(session.await_task(id, options)).await;
            drop(display);
            match result {
                Ok(result) => result_code(context, server, "task", &result),
                Err(error) => failed(&error),
            }
        }
        TaskCommand::Cancel { id, .. } => match span.run(session.cancel_task(id)).await {
            Ok(()) => {
                if context.global.json {
                    let mut shown = Map::new();
                    shown.insert("taskId".to_owned(), Value::String(id.clone()));
                    shown.insert("cancelled".to_owned(), Value::Bool(true));
                    print_json(&shown);
                } else {
                    println!("task {id}: cancel sent");
                }
                ExitCode::from(exit::OK)
            }
            Err(error) => failed(&error),
        },
    };
    let _ = session.close().await;
    drop(span);
    code
}

/// A task as it is now: its status, and its outcome once it ended.
fn show(context: &Context<'_>, server: &ServerConfig, seen: &DetailedTask) -> ExitCode {
    if context.global.json {
        print_json(seen);
    } else {
        println!("{}", status_line(&seen.task));
    }
    match (&seen.task.status, &seen.result, &seen.error) {
        (TaskStatus::Completed, Some(result), _) => {
            if !context.global.json {
                print!("{}", render::call_result(result));
            }
            if result.is_error() {
                ExitCode::from(exit::TOOL_ERROR)
            } else {
                ExitCode::from(exit::OK)
            }
        }
        (TaskStatus::Failed, _, error) => {
            if !context.global.json {
                let message = error
                    .as_ref()
                    .map_or("no error given", |e| e.message.as_str());
                eprintln!(
                    "error: task {} on server '{}' failed: {message}",
                    seen.task.task_id, server.name
                );
            }
            ExitCode::from(exit::SERVER_FAILED)
        }
        _ => ExitCode::from(exit::OK),
    }
}

fn print_task(context: &Context<'_>, task: &Task) {
    if context.global.json {
        print_json(task);
    } else {
        println!("{}", task.task_id);
    }
}

fn status_line(task: &Task) -> String {
    match &task.status_message {
        Some(message) => format!("task {}: {} ({message})", task.task_id, task.status),
        None => format!("task {}: {}", task.task_id, task.status),
    }
}

fn result_code(
    context: &Context<'_>,
    server: &ServerConfig,
    tool: &str,
    result: &CallToolResult,
) -> ExitCode {
    if context.global.json {
        print_json(result);
    } else {
        print!("{}", render::call_result(result));
    }
    if result.is_error() {
        if !context.global.json {
            eprintln!(
                "error: tool '{tool}' on server '{}' reported an error",
                server.name
            );
        }
        ExitCode::from(exit::TOOL_ERROR)
    } else {
        ExitCode::from(exit::OK)
    }
}

fn failed(error: &mcpdisco_client::session::SessionError) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(exit::SERVER_FAILED)
}

/// Says on stderr, once, the id of the task a followed call runs as, so a
/// follower that is stopped (or killed) can be resumed with `task get --wait`.
fn announce_task(
    mut statuses: watch::Receiver<Option<Task>>,
    server: String,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while statuses.changed().await.is_ok() {
            let id = statuses
                .borrow_and_update()
                .as_ref()
                .map(|task| task.task_id.clone());
            if let Some(id) = id {
                eprintln!("task {id}: resume with `mcp-cli task get {server} {id} --wait`");
                return;
            }
        }
    })
}

/// The task's status and the time since the call, on stderr, only when
/// stderr is a terminal. Dropping it clears the line.
struct StatusLine {
    bar: Option<ProgressBar>,
    updater: Option<tokio::task::JoinHandle<()>>,
}

impl StatusLine {
    fn start(mut statuses: watch::Receiver<Option<Task>>) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self {
                bar: None,
                updater: None,
            };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_message("calling");
        bar.enable_steady_tick(Duration::from_millis(100));
        let shown = bar.clone();
        let updater = tokio::spawn(async move {
            while statuses.changed().await.is_ok() {
                let line = statuses.borrow_and_update().as_ref().map(status_line);
                if let Some(line) = line {
                    shown.set_message(line);
                }
            }
        });
        Self {
            bar: Some(bar),
            updater: Some(updater),
        }
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        if let Some(updater) = self.updater.take() {
            updater.abort();
        }
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
