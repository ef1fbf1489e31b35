//! A scripted [`AuthHttp`] for tests: it answers each request from a script
//! (by method and URL, the query left out), 404 where the script has
//! nothing, and records every request. No socket is opened.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::http::{AuthHttp, AuthRequest, Fetched, Method};
use crate::error::AuthError;

/// The answers to one method and URL: each is given once, the last one
/// again and again.
#[derive(Debug)]
struct Route {
    method: Method,
    url: String,
    answers: VecDeque<Fetched>,
}

/// Answers from a script, and remembers what was asked.
#[derive(Debug, Default)]
pub(crate) struct ScriptedHttp {
    routes: Mutex<Vec<Route>>,
    requests: Mutex<Vec<AuthRequest>>,
}

impl ScriptedHttp {
    /// An empty script: every request is answered 404.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Answers `method url` with `status` and `body` (after the answers
    /// scripted for it before).
    pub(crate) fn answer(&self, method: Method, url: &str, status: u16, body: &str) -> &Self {
        self.answer_with(method, url, status, &[], body)
    }

    /// The same, with response headers (names in lower case).
    pub(crate) fn answer_with(
        &self,
        method: Method,
        url: &str,
        status: u16,
        headers: &[(&str, &str)],
        body: &str,
    ) -> &Self {
        let fetched = Fetched {
            status,
            headers: headers
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
            body: body.as_bytes().to_vec(),
        };
        let mut routes = self.routes.lock().unwrap();
        match routes
            .iter_mut()
            .find(|route| route.method == method && route.url == url)
        {
            Some(route) => route.answers.push_back(fetched),
            None => routes.push(Route {
                method,
                url: url.to_owned(),
                answers: VecDeque::from([fetched]),
            }),
        }
        self
    }

    /// Every request so far, in order.
    pub(crate) fn requests(&self) -> Vec<AuthRequest> {
        self.requests.lock().unwrap().clone()
    }

    /// Every request so far as `METHOD url` (the query left out).
    pub(crate) fn asked(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|request| {
                format!(
                    "{} {}",
                    request.method.as_str(),
                    without_query(&request.url)
                )
            })
            .collect()
    }

    /// The requests to `url` (the query left out).
    pub(crate) fn requests_to(&self, url: &str) -> Vec<AuthRequest> {
        self.requests()
            .into_iter()
            .filter(|request| without_query(&request.url) == url)
            .collect()
    }
}

fn without_query(url: &url::Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

#[async_trait]
impl AuthHttp for ScriptedHttp {
    async fn send(&self, request: AuthRequest) -> Result<Fetched, AuthError> {
        let url = without_query(&request.url);
        let method = request.method;
        self.requests.lock().unwrap().push(request);
        let mut routes = self.routes.lock().unwrap();
        let answer = routes
            .iter_mut()
            .find(|route| route.method == method && route.url == url)
            .and_then(|route| {
                if route.answers.len() > 1 {
                    route.answers.pop_front()
                } else {
                    route.answers.front().cloned()
                }
            });
        Ok(answer.unwrap_or_else(|| Fetched {
            status: 404,
            headers: Vec::new(),
            body: b"Not Found".to_vec(),
        }))
    }
}
