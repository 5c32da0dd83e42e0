//! The text a [`Module`](crate::Module) was read from, kept beside it because every span indexes
//! into it (diagnostics, the printer, reports).
//!
//! Either owned (a `String`) or shared with whoever produced it: a caller can hand over text that
//! lives elsewhere (the command line maps large input files into memory instead of copying them
//! into a heap buffer, which on a 38 MB module cost tens of milliseconds of page faults and
//! copying, issue 13). Either way it dereferences to `&str`: the reader and everything after it
//! see one text type, and cloning a module shares a mapped text rather than copying it.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A module's source text: owned, or shared (see the module documentation).
#[derive(Clone, Default)]
pub struct Source(Repr);

#[derive(Clone)]
enum Repr {
    Owned(String),
    Shared(Arc<dyn AsRef<str> + Send + Sync>),
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::Owned(String::new())
    }
}

impl Source {
    /// Text owned elsewhere (a memory mapping, a shared buffer), kept alive as long as the source.
    pub fn shared(text: Arc<dyn AsRef<str> + Send + Sync>) -> Source {
        Source(Repr::Shared(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Owned(s) => s,
            Repr::Shared(t) => (**t).as_ref(),
        }
    }
}

impl Deref for Source {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Source {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Source {
    fn from(s: String) -> Source {
        Source(Repr::Owned(s))
    }
}

impl PartialEq<str> for Source {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The text can be tens of megabytes: say what it is, not what it says.
        let kind = match self.0 {
            Repr::Owned(_) => "owned",
            Repr::Shared(_) => "shared",
        };
        write!(f, "Source({kind}, {} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_and_shared_read_the_same_text() {
        let owned = Source::from("define void @f() {\n}\n".to_string());
        let shared = Source::shared(Arc::new("define void @f() {\n}\n".to_string()));
        assert_eq!(owned.as_str(), shared.as_str());
        assert_eq!(shared.len(), 21);
        assert!(shared.clone() == *"define void @f() {\n}\n");
        assert_eq!(format!("{shared:?}"), "Source(shared, 21 bytes)");
        assert_eq!(Source::default().as_str(), "");
    }
}
