//! STARTTLS's certificate: read from two PEM files (`ADMIRALTY_SMTP_TLS_CERT`, `_KEY`) and read
//! again when either changes, so a renewed certificate serves the next STARTTLS without a
//! restart. A renewed pair that does not load (half written, key and certificate apart) keeps
//! the certificate in use, and is logged once.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, ServerConfig};

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, io::Error),
    #[error("{0} holds no PEM certificate: {1}")]
    NoCertificate(PathBuf, String),
    #[error("{0} holds no PEM private key: {1}")]
    NoKey(PathBuf, String),
    #[error("the certificate and key do not make a TLS configuration: {0}")]
    Config(#[from] rustls::Error),
}

/// What a file looked like when it was read: a renewal changes one of these.
type Stamp = (Option<SystemTime>, u64);

fn stamp(path: &Path) -> Stamp {
    match std::fs::metadata(path) {
        Ok(meta) => (meta.modified().ok(), meta.len()),
        Err(_) => (None, 0),
    }
}

struct Loaded {
    stamps: (Stamp, Stamp),
    acceptor: TlsAcceptor,
    /// The stamps of a pair that failed to load, so that it is logged once, not every session.
    failed: Option<(Stamp, Stamp)>,
}

/// The listener's certificate and key, as files on disk.
pub struct TlsCertificates {
    cert: PathBuf,
    key: PathBuf,
    loaded: Mutex<Loaded>,
}

impl std::fmt::Debug for TlsCertificates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsCertificates")
            .field("cert", &self.cert)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl TlsCertificates {
    /// Reads the pair; an error here stops `gm serve` (a typo must not leave mail in clear).
    pub fn load(cert: &Path, key: &Path) -> Result<Arc<TlsCertificates>, TlsError> {
        let stamps = (stamp(cert), stamp(key));
        let acceptor = acceptor(cert, key)?;
        Ok(Arc::new(TlsCertificates {
            cert: cert.to_owned(),
            key: key.to_owned(),
            loaded: Mutex::new(Loaded {
                stamps,
                acceptor,
                failed: None,
            }),
        }))
    }

    /// The acceptor for a handshake starting now: the files are read again if they changed.
    pub fn acceptor(&self) -> TlsAcceptor {
        let stamps = (stamp(&self.cert), stamp(&self.key));
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        if stamps != loaded.stamps && loaded.failed != Some(stamps) {
            match acceptor(&self.cert, &self.key) {
                Ok(fresh) => {
                    tracing::info!(cert = %self.cert.display(), "SMTP TLS certificate read again");
                    loaded.acceptor = fresh;
                    loaded.stamps = stamps;
                    loaded.failed = None;
                }
                Err(error) => {
                    tracing::error!(%error, "the renewed SMTP TLS certificate does not load; keeping the one in use");
                    loaded.failed = Some(stamps);
                }
            }
        }
        loaded.acceptor.clone()
    }
}

fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let cert_pem = std::fs::read(cert).map_err(|e| TlsError::Read(cert.to_owned(), e))?;
    let key_pem = std::fs::read(key).map_err(|e| TlsError::Read(key.to_owned(), e))?;
    let chain = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::NoCertificate(cert.to_owned(), e.to_string()))?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate(cert.to_owned(), "empty".into()));
    }
    let private = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| TlsError::NoKey(key.to_owned(), e.to_string()))?;
    // ring is the provider the rest of the process's rustls uses (lettre, sqlx); naming it
    // here needs no process-wide default.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, private)?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}
