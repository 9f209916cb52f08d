//! The git side of the replay: first-parent history, the files a commit changed, and
//! blob bytes — all through the `git` command, with NUL-separated output so that any
//! path survives.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, bail};

/// A repository on disk.
pub struct Repo {
    dir: PathBuf,
}

/// One commit of the first-parent history.
#[derive(Clone, Debug)]
pub struct Commit {
    /// The full object name.
    pub id: String,
    /// The first parent; `None` for a root commit.
    pub parent: Option<String>,
    /// The subject line.
    pub subject: String,
}

/// One changed path of a commit (`git diff-tree --raw`).
#[derive(Clone, Debug)]
pub struct Change {
    /// `M`, `A`, `D`, `T`, ...
    pub status: u8,
    /// The file mode before (`100644`, `120000`, ...).
    pub old_mode: String,
    /// The file mode after.
    pub new_mode: String,
    /// The blob before.
    pub old_blob: String,
    /// The blob after.
    pub new_blob: String,
    /// The path, as git stores it (any bytes but NUL).
    pub path: Vec<u8>,
}

impl Change {
    /// Whether both sides are regular files (not symlinks or submodules).
    pub fn is_regular(&self) -> bool {
        let regular = |mode: &str| mode.starts_with("100");
        regular(&self.old_mode) && regular(&self.new_mode)
    }
}

impl Repo {
    /// Opens the repository that contains `dir`.
    pub fn open(dir: &Path) -> Result<Self> {
        let repo = Self { dir: dir.to_path_buf() };
        repo.git(&["rev-parse", "--git-dir"]).with_context(|| format!("{} is not a git repository", dir.display()))?;
        Ok(repo)
    }

    fn command(&self) -> Command {
        let mut command = Command::new("git");
        command.arg("-C").arg(&self.dir);
        command
    }

    fn git(&self, args: &[&str]) -> Result<Vec<u8>> {
        let output = self.command().args(args).output().context("cannot run git")?;
        if !output.status.success() {
            bail!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&output.stderr).trim());
        }
        Ok(output.stdout)
    }

    /// The last `n` commits of the first-parent history of `HEAD`, oldest first.
    pub fn first_parent_commits(&self, n: usize) -> Result<Vec<Commit>> {
        let count = format!("-n{n}");
        let out = self.git(&["log", "--first-parent", &count, "-z", "--format=%H%x00%P%x00%s"])?;
        let fields: Vec<&[u8]> = out.split(|&b| b == 0).collect();
        let mut commits: Vec<Commit> = fields
            .chunks(3)
            .filter(|chunk| chunk.len() == 3)
            .map(|chunk| {
                let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_owned();
                let parents = text(chunk[1]);
                Commit {
                    id: text(chunk[0]),
                    parent: parents.split_whitespace().next().map(str::to_owned),
                    subject: text(chunk[2]),
                }
            })
            .collect();
        commits.reverse();
        Ok(commits)
    }

    /// The paths `commit` changed relative to `parent`, renames split into delete + add.
    pub fn changes(&self, parent: &str, commit: &str) -> Result<Vec<Change>> {
        let out = self.git(&["diff-tree", "-r", "--no-renames", "--no-abbrev", "-z", parent, commit])?;
        let mut tokens = out.split(|&b| b == 0).filter(|t| !t.is_empty());
        let mut changes = Vec::new();
        while let Some(header) = tokens.next() {
            let header = String::from_utf8_lossy(header);
            let parts: Vec<&str> = header.trim_start_matches(':').split(' ').collect();
            let (Some(path), [old_mode, new_mode, old_blob, new_blob, status]) = (tokens.next(), parts.as_slice())
            else {
                bail!("unexpected git diff-tree output near {header:?}");
            };
            changes.push(Change {
                status: status.as_bytes().first().copied().unwrap_or(b'?'),
                old_mode: (*old_mode).to_owned(),
                new_mode: (*new_mode).to_owned(),
                old_blob: (*old_blob).to_owned(),
                new_blob: (*new_blob).to_owned(),
                path: path.to_vec(),
            });
        }
        Ok(changes)
    }

    /// A reader of blob contents (one `git cat-file --batch` for the whole run).
    pub fn blobs(&self) -> Result<Blobs> {
        let mut child = self
            .command()
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot run git cat-file")?;
        let stdin = child.stdin.take().context("git cat-file has no stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("git cat-file has no stdout")?);
        Ok(Blobs { child, stdin: Some(stdin), stdout })
    }
}

/// Blob contents by object name.
pub struct Blobs {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Blobs {
    /// The bytes of `blob`, or `None` when it is larger than `max` bytes.
    pub fn get(&mut self, blob: &str, max: u64) -> Result<Option<Vec<u8>>> {
        let stdin = self.stdin.as_mut().context("git cat-file was closed")?;
        writeln!(stdin, "{blob}").and_then(|()| stdin.flush()).context("cannot talk to git cat-file")?;
        let mut header = String::new();
        self.stdout.read_line(&mut header).context("cannot read from git cat-file")?;
        let size: u64 = match header.split_whitespace().collect::<Vec<_>>().as_slice() {
            [_, "blob", size] => size.parse().with_context(|| format!("bad git cat-file header {header:?}"))?,
            _ => bail!("git cat-file cannot show {blob}: {}", header.trim()),
        };
        let mut body = (&mut self.stdout).take(size + 1);
        if size > max {
            std::io::copy(&mut body, &mut std::io::sink()).context("cannot read from git cat-file")?;
            return Ok(None);
        }
        let mut bytes = Vec::with_capacity(size as usize + 1);
        body.read_to_end(&mut bytes).context("cannot read from git cat-file")?;
        if bytes.pop() != Some(b'\n') || bytes.len() as u64 != size {
            bail!("git cat-file returned a short object for {blob}");
        }
        Ok(Some(bytes))
    }
}

impl Drop for Blobs {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
