//! Bearer tokens: where they come from and how a request's token is checked.

use std::path::Path;

use subtle::ConstantTimeEq;

/// The shortest token accepted (bytes): a token must not be guessable.
pub const MIN_TOKEN_LEN: usize = 16;

/// The environment variable that can hold the token (one token).
pub const TOKEN_ENV: &str = "HASHLINE_MCP_TOKEN";

/// The accepted bearer tokens. Each one is a separate identity: a session belongs to the
/// token that opened it. The tokens are never printed (`Debug` shows only their count).
#[derive(Clone, Default)]
pub struct Tokens(Vec<Vec<u8>>);

/// The largest token file read.
const MAX_TOKEN_FILE_BYTES: u64 = 1024 * 1024;

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens({} hidden)", self.0.len())
    }
}

/// Why tokens cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token file cannot be read.
    #[error("cannot read the token file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No token in the file or variable.
    #[error("{0} holds no token")]
    Empty(String),
    /// A token is too short (its text is not repeated here).
    #[error("{0}: a token must be at least {MIN_TOKEN_LEN} bytes long")]
    TooShort(String),
}

impl Tokens {
    /// No token: every request is let through (loopback only).
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// Tokens from text: one per non-empty line, surrounding whitespace trimmed.
    pub fn parse(text: &str, source: &str) -> Result<Self, TokenError> {
        let tokens: Vec<Vec<u8>> =
            text.lines().map(str::trim).filter(|line| !line.is_empty()).map(|line| line.as_bytes().to_vec()).collect();
        if tokens.is_empty() {
            return Err(TokenError::Empty(source.to_owned()));
        }
        if tokens.iter().any(|token| token.len() < MIN_TOKEN_LEN) {
            return Err(TokenError::TooShort(source.to_owned()));
        }
        Ok(Self(tokens))
    }

    /// Tokens from a file, one per line: a regular file of at most 1 MiB of UTF-8 (a
    /// FIFO or device there is refused without waiting).
    pub fn from_file(path: &Path) -> Result<Self, TokenError> {
        let read = |source| TokenError::Read { path: path.display().to_string(), source };
        let bytes = hashline::fs::open::read_regular(path, MAX_TOKEN_FILE_BYTES).map_err(read)?;
        let text = String::from_utf8(bytes)
            .map_err(|err| read(std::io::Error::new(std::io::ErrorKind::InvalidData, err.utf8_error())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// How many tokens are configured.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// Whether any token is configured (then every request must carry one).
    pub fn required(&self) -> bool {
        !self.0.is_empty()
    }

    /// Which token an `Authorization` header value carries: `Ok(None)` when no token is
    /// configured, `Ok(Some(index))` for a known token, `Err(())` otherwise. Every known
    /// token is compared, each in constant time, so the time taken tells nothing about
    /// which bytes matched.
    pub(crate) fn identify(&self, authorization: Option<&[u8]>) -> Result<Option<usize>, ()> {
        if self.0.is_empty() {
            return Ok(None);
        }
        let presented = authorization.and_then(bearer).ok_or(())?;
        let mut found = None;
        for (index, token) in self.0.iter().enumerate() {
            if bool::from(token.as_slice().ct_eq(presented)) {
                found = Some(index);
            }
        }
        found.map(Some).ok_or(())
    }
}

/// The credentials of `Bearer <token>` (scheme case-insensitive).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then(|| rest.trim_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn tokens_are_lines_and_must_be_long() {
        let tokens = Tokens::parse(&format!("\n  {A}  \n{B}\n"), "f").expect("tokens");
        assert_eq!(tokens.identify(Some(format!("Bearer {A}").as_bytes())), Ok(Some(0)));
        assert_eq!(tokens.identify(Some(format!("bearer {B}").as_bytes())), Ok(Some(1)));
        assert!(matches!(Tokens::parse("\n \n", "f"), Err(TokenError::Empty(_))));
        let err = Tokens::parse("short", "f").expect_err("short");
        assert!(!err.to_string().contains("short\n") && matches!(err, TokenError::TooShort(_)));
    }

    #[test]
    fn missing_malformed_and_wrong_tokens_are_refused() {
        let tokens = Tokens::parse(A, "f").expect("tokens");
        assert_eq!(tokens.identify(None), Err(()));
        assert_eq!(tokens.identify(Some(A.as_bytes())), Err(()));
        assert_eq!(tokens.identify(Some(format!("Basic {A}").as_bytes())), Err(()));
        assert_eq!(tokens.identify(Some(format!("Bearer {A}x").as_bytes())), Err(()));
        assert_eq!(tokens.identify(Some(b"Bearer")), Err(()));
        assert_eq!(Tokens::none().identify(None), Ok(None));
    }

    #[test]
    fn debug_never_shows_a_token() {
        let tokens = Tokens::parse(A, "f").expect("tokens");
        assert_eq!(format!("{tokens:?}"), "Tokens(1 hidden)");
    }

    /// A token file is read like any untrusted file: a FIFO there is refused at once (a
    /// plain read waited for a writer forever), and so is an endless device.
    #[cfg(unix)]
    #[test]
    fn a_token_file_that_is_a_fifo_or_a_device_is_refused_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("tokens");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
        let started = std::time::Instant::now();
        assert!(matches!(Tokens::from_file(&fifo), Err(TokenError::Read { .. })));
        assert!(matches!(Tokens::from_file(std::path::Path::new("/dev/zero")), Err(TokenError::Read { .. })));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let file = dir.path().join("ok");
        std::fs::write(&file, format!("{A}\n")).expect("write");
        assert!(Tokens::from_file(&file).expect("tokens").required());
    }
}
