//! [`RequestCredentials`]: the per-request headers seam an authorization
//! layer plugs into.

/// Headers an HTTP transport asks for before each request it sends: the seam
/// an authorization layer plugs into without the transport knowing OAuth.
///
/// Called for every POST, GET stream and DELETE, with the method and the URL
/// about to be used (a DPoP proof signs both). It must be quick and must not
/// block: return what is current, and refresh elsewhere.
pub trait RequestCredentials: Send + Sync {
    /// The headers for one request (usually `Authorization`).
    fn headers(
        &self,
        method: &str,
        url: &url::Url,
    ) -> Vec<(reqwest::header::HeaderName, reqwest::header::HeaderValue)>;
}
