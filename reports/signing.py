"""The laboratory's signing key: Ed25519, generated once per laboratory with ``bench keys init``.

The private key signs each run's manifest (:mod:`reports.manifest`); its public key
is printed in the certificate and handed to whoever must verify a run, so that
``bench verify RUN_DIR --public-key FILE`` proves the run left the laboratory
unchanged. The private key is stored as PKCS#8 PEM, readable by its owner only, in a
directory only its owner may enter (0700), and encrypted when a passphrase is given
(environment variable ``BENCH_KEY_PASSPHRASE``). An encrypted key is opened with that
variable, else with a passphrase asked at the terminal; without either the key is not
loaded. The variable never reaches a process the bench starts
(:func:`bench.paths.child_environment`).

Where keys live: ``--key-dir``, else ``$BENCH_KEY_DIR``, else ``~/.bench/keys``.
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

PRIVATE_KEY_FILE = "lab_ed25519.pem"
PUBLIC_KEY_FILE = "lab_ed25519.pub"
PASSPHRASE_VARIABLE = "BENCH_KEY_PASSPHRASE"
PUBLIC_KEY_PREFIX = "bench-ed25519 "
ENCRYPTED_PEM_HEADER = b"-----BEGIN ENCRYPTED PRIVATE KEY-----"


class KeyFileError(ValueError):
    """A key file is missing, unreadable or not an Ed25519 key (the message names the file)."""


def default_key_dir() -> Path:
    """``$BENCH_KEY_DIR`` or ``~/.bench/keys``."""
    configured = os.environ.get("BENCH_KEY_DIR")
    return Path(configured) if configured else Path.home() / ".bench" / "keys"


def public_key_text(public: Ed25519PublicKey) -> str:
    """One line: ``bench-ed25519 <base64 of the 32 raw bytes>``."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return PUBLIC_KEY_PREFIX + base64.b64encode(raw).decode("ascii")


def parse_public_key(text: str, source: str = "public key") -> Ed25519PublicKey:
    """Read a public key written by :func:`public_key_text`; ValueError naming ``source`` otherwise."""
    line = text.strip()
    if not line.startswith(PUBLIC_KEY_PREFIX):
        raise KeyFileError(f"{source}: not a bench public key (expected a line starting {PUBLIC_KEY_PREFIX.strip()!r})")
    try:
        raw = base64.b64decode(line[len(PUBLIC_KEY_PREFIX):], validate=True)
    except ValueError as error:
        raise KeyFileError(f"{source}: the key is not valid base64") from error
    if len(raw) != 32:
        raise KeyFileError(f"{source}: an Ed25519 public key has 32 bytes, this one {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def fingerprint(public: Ed25519PublicKey) -> str:
    """SHA-256 of the raw public key, as ``SHA256:`` and 16 hex groups of 4 (what people compare by eye)."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    digest = hashlib.sha256(raw).hexdigest()
    return "SHA256:" + ":".join(digest[index:index + 4] for index in range(0, 64, 4))


@dataclass(frozen=True)
class LabKey:
    """The laboratory's key pair, loaded."""

    private: Ed25519PrivateKey
    directory: Path

    @property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, data: bytes) -> bytes:
        return self.private.sign(data)


def _passphrase() -> bytes | None:
    """The passphrase in ``$BENCH_KEY_PASSPHRASE``, None when it is not set (or empty)."""
    value = os.environ.get(PASSPHRASE_VARIABLE)
    return value.encode("utf-8") if value else None


def _passphrase_for(private_path: Path, pem: bytes) -> bytes | None:
    """The passphrase that opens ``pem``: None for a key stored in clear, else ``$BENCH_KEY_PASSPHRASE``, else
    asked at the terminal (without echo) when standard input is one; :class:`KeyFileError` when there is none."""
    given = _passphrase()
    if given is not None or ENCRYPTED_PEM_HEADER not in pem:
        return given
    if not sys.stdin.isatty():
        raise KeyFileError(f"{private_path}: the key is encrypted and {PASSPHRASE_VARIABLE} is not set; there is no "
                           f"terminal to ask for the passphrase: set {PASSPHRASE_VARIABLE}, or run at a terminal")
    try:
        typed = getpass.getpass(f"Passphrase of the laboratory key {private_path}: ")
    except (EOFError, KeyboardInterrupt) as error:
        raise KeyFileError(f"{private_path}: the key is encrypted and no passphrase was given") from error
    if not typed:
        raise KeyFileError(f"{private_path}: the key is encrypted and no passphrase was given")
    return typed.encode("utf-8")


def _private_directory(directory: Path) -> None:
    """Create the key directory readable by its owner only (0700), and take group and others' access
    away from one that exists."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    mode = directory.stat().st_mode & 0o7777
    if mode & 0o077:
        os.chmod(directory, mode & ~0o077)


def init_key(directory: Path | None = None, *, force: bool = False) -> LabKey:
    """Generate the laboratory key pair in ``directory``; refuses to overwrite one unless ``force``."""
    directory = Path(directory) if directory is not None else default_key_dir()
    private_path = directory / PRIVATE_KEY_FILE
    if private_path.exists() and not force:
        raise FileExistsError(f"{private_path}: a laboratory key already exists (use --force to replace it; "
                              "runs signed with the old key then verify only against the old public key)")
    _private_directory(directory)
    key = Ed25519PrivateKey.generate()
    passphrase = _passphrase()
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase) if passphrase else serialization.NoEncryption()
    )
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
    descriptor = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
    os.chmod(private_path, 0o600)
    (directory / PUBLIC_KEY_FILE).write_text(public_key_text(key.public_key()) + "\n", encoding="ascii")
    return LabKey(key, directory)


def load_key(directory: Path | None = None) -> LabKey:
    """The laboratory key from ``directory``; KeyFileError naming the file when it is missing or unreadable."""
    directory = Path(directory) if directory is not None else default_key_dir()
    private_path = directory / PRIVATE_KEY_FILE
    try:
        pem = private_path.read_bytes()
    except FileNotFoundError as error:
        raise KeyFileError(f"{private_path}: no laboratory key (create one with `bench keys init`)") from error
    password = _passphrase_for(private_path, pem)
    try:
        key = serialization.load_pem_private_key(pem, password=password)
    except (ValueError, TypeError) as error:
        raise KeyFileError(f"{private_path}: cannot read the key ({error}; is {PASSPHRASE_VARIABLE} right?)") from error
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{private_path}: not an Ed25519 key")
    return LabKey(key, directory)


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A public key file written by ``bench keys init`` (or copied from a certificate)."""
    try:
        text = Path(path).read_text(encoding="ascii")
    except (FileNotFoundError, UnicodeDecodeError) as error:
        raise KeyFileError(f"{path}: cannot read a public key ({error})") from error
    return parse_public_key(text, str(path))


def signature_valid(public: Ed25519PublicKey, data: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public``'s Ed25519 signature of ``data``."""
    try:
        public.verify(signature, data)
    except InvalidSignature:
        return False
    return True
