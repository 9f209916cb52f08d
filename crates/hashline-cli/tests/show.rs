//! `hashline show`: a session log drawn as cards, as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions").join(name).join("session.jsonl")
}

fn show(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
    command.arg("show").args(args).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env_remove("CLICOLOR");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run hashline show")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_pipe_gets_plain_text_and_forced_colour_gets_escapes() {
    let log = fixture("fs-edit");
    let log = log.to_str().expect("utf-8 path");
    let piped = show(&[log], &[]);
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    let plain = text(&piped.stdout);
    assert!(plain.contains("[2] Edit config.txt · edit · call_edit"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "no colour into a pipe");

    let forced = text(&show(&[log], &[("CLICOLOR_FORCE", "1")]).stdout);
    assert!(forced.contains("\u{1b}["), "CLICOLOR_FORCE gives colour");
    let no_color = text(&show(&[log], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).stdout);
    assert_eq!(no_color, plain, "NO_COLOR wins");
    let plain_flag = text(&show(&[log, "--plain"], &[("CLICOLOR_FORCE", "1")]).stdout);
    assert_eq!(plain_flag, plain, "--plain wins");
}

#[test]
fn call_selects_one_call_and_an_unknown_id_is_a_usage_error() {
    let log = fixture("nested-stale-context");
    let log = log.to_str().expect("utf-8 path");
    let one = text(&show(&[log, "--call", "call_program"], &[]).stdout);
    assert!(one.contains("[2] List . · ls · call_program"), "{one}");
    assert!(one.contains("↳ [3] Edit s.txt"), "nested calls come along: {one}");
    assert!(!one.contains("call_read"), "{one}");

    let missing = show(&[log, "--call", "nope"], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("no call with id \"nope\" in the log"), "{}", text(&missing.stderr));
}

#[test]
fn html_writes_one_self_contained_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("page.html");
    let run = show(&[fixture("workspace-edit").to_str().expect("utf-8"), "--html", out.to_str().expect("utf-8")], &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(run.stdout.is_empty(), "the page goes to the file only");
    let page = std::fs::read_to_string(&out).expect("page");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<style>") && page.contains("<script>"));
    assert_eq!(page.matches("<section class=\"card ").count(), 3);
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
}

#[test]
fn a_damaged_log_shows_what_came_before_and_says_where() {
    let dir = tempfile::tempdir().expect("tempdir");
    let whole = std::fs::read_to_string(fixture("workspace-edit")).expect("log");
    let cut = &whole[..whole.len() - 40];
    let log = dir.path().join("cut.jsonl");
    std::fs::write(&log, cut).expect("write");
    let run = show(&[log.to_str().expect("utf-8")], &[]);
    assert!(run.status.success());
    let out = text(&run.stdout);
    assert!(out.contains("[3] Edit greeting.txt") && out.contains("pending"), "{out}");
    assert!(out.contains("! session log line 7 is truncated or corrupted"), "{out}");

    let missing = show(&[dir.path().join("none.jsonl").to_str().expect("utf-8")], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot read the session log"));
}

/// Longest a `hashline show` here may take before it counts as blocked.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// `hashline show ARGS`, killed (and the test failed) if it runs past [`PATIENCE`].
fn show_bounded(args: &[&str], env: &[(&str, &str)]) -> Output {
    use std::process::Stdio;
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
    command.arg("show").args(args).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env_remove("CLICOLOR");
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("spawn hashline show");
    let drain = |pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut pipe = pipe;
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hashline show {} blocked for {PATIENCE:?}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output { status, stdout: stdout.join().expect("stdout"), stderr: stderr.join().expect("stderr") }
}

use std::io::Read as _;

#[cfg(unix)]
fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo").success());
}

/// The control characters of `text` a terminal would act on, other than SGR colour
/// sequences (`ESC [ digits ; m`), newline and tab.
fn raw_controls(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, c) in text.char_indices() {
        if c == '\u{1b}' {
            let rest = &text[at + 1..];
            let sgr = rest.strip_prefix('[').is_some_and(|r| {
                r.find(|c: char| !c.is_ascii_digit() && c != ';').is_some_and(|end| r.as_bytes()[end] == b'm')
            });
            if !sgr {
                found.push(format!("ESC at {at}: {:?}", &text[at..(at + 12).min(text.len())]));
            }
        } else if c.is_control() && c != '\n' && c != '\t' {
            found.push(format!("{c:?} at {at}"));
        }
    }
    found
}

/// OSC 52 (clipboard), OSC 0 (title), CSI 2J (clear screen), C1 CSI, DEL.
const PAYLOAD: &[u8] = b"x\x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]0;owned\x07 \x1b[2J \xc2\x9b31m \x7f";

#[test]
fn a_file_with_terminal_controls_reaches_the_terminal_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("p");
    std::fs::create_dir(&project).expect("project");
    // Windows holds no control character in a name: there the controls are in the content only.
    let name = if cfg!(windows) {
        "evil.txt".to_owned()
    } else {
        format!("evil{}.txt", String::from_utf8_lossy(PAYLOAD).replace(['\x07', '\x7f'], ""))
    };
    let mut content = PAYLOAD.to_vec();
    content.extend_from_slice(b"\nsecond line\n");
    std::fs::write(project.join(&name), &content).expect("write");
    let log = dir.path().join("session.jsonl");
    let hashline = |args: &[&str]| {
        let root = project.to_str().expect("utf-8");
        let log = log.to_str().expect("utf-8");
        let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
        command.args(["--root", root, "--stateless", "--log", log]).args(args).current_dir(&project);
        command.output().expect("run hashline")
    };
    assert!(hashline(&["read", &name]).status.success());
    assert!(hashline(&["grep", "owned", "."]).status.success());
    assert!(hashline(&["ls", "."]).status.success());
    assert!(hashline(&["read", "missing\x1b]0;title\x07.txt"]).status.code() == Some(1));
    let logged = std::fs::read(&log).expect("log");
    assert!(!logged.is_empty());

    let log = log.to_str().expect("utf-8");
    for env in [&[][..], &[("CLICOLOR_FORCE", "1")][..]] {
        let run = show_bounded(&[log], env);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let out = text(&run.stdout);
        assert_eq!(raw_controls(&out), Vec::<String>::new(), "{env:?}:\n{out}");
        assert!(out.contains("x\\u001b]52;c;ZWNobyBwd25lZA==\\u0007"), "{env:?}: the row in display form:\n{out}");
        assert!(out.contains("\\u009b31m \\u007f"), "{env:?}:\n{out}");
    }
    let page = dir.path().join("page.html");
    let run = show_bounded(&[log, "--html", page.to_str().expect("utf-8")], &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let page = std::fs::read_to_string(&page).expect("page");
    assert_eq!(raw_controls(&page), Vec::<String>::new());
}

#[test]
fn ids_from_the_log_in_an_error_reach_the_terminal_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("session.jsonl");
    let lines = [
        r#"{"type":"session","version":1,"root":"/w"}"#,
        r#"{"type":"tool/call","callId":"c\u001b]52;c;eA==\u0007\u009b2J","name":"ls","args":{}}"#,
    ];
    std::fs::write(&log, lines.join("\n") + "\n").expect("log");
    let run = show_bounded(&[log.to_str().expect("utf-8"), "--call", "nope"], &[]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains("no call with id \"nope\""), "{err}");
    assert_eq!(raw_controls(&err), Vec::<String>::new(), "{err}");
    assert!(err.contains("c\\u001b]52;c;eA==\\u0007\\u009b2J"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_as_the_log_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    for log in [fifo.to_str().expect("utf-8"), "/dev/zero"] {
        let run = show_bounded(&[log], &[]);
        assert_eq!(run.status.code(), Some(2), "{log}");
        let err = text(&run.stderr);
        assert!(err.starts_with("hashline: cannot read the session log"), "{log}: {err}");
        assert!(err.contains("not a regular file"), "{log}: {err}");
    }
}

#[test]
fn a_log_over_256_mib_is_refused_unread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("huge.jsonl");
    // Sparse: no disk and no time to make it.
    std::fs::File::create(&log).expect("create").set_len(256 * 1024 * 1024 + 1).expect("set_len");
    let run = show_bounded(&[log.to_str().expect("utf-8")], &[]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.contains("is over 256 MiB"), "{err}");
    assert!(run.stdout.is_empty());
}

#[cfg(unix)]
#[test]
fn html_into_a_fifo_is_refused_at_once_and_the_fifo_is_left_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("page.html");
    mkfifo(&fifo);
    let log = fixture("fs-edit");
    let run = show_bounded(&[log.to_str().expect("utf-8"), "--html", fifo.to_str().expect("utf-8")], &[]);
    assert_eq!(run.status.code(), Some(2));
    let err = text(&run.stderr);
    assert!(err.starts_with("hashline: cannot write"), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).expect("still there").file_type().is_fifo());
}

#[cfg(unix)]
#[test]
fn html_replaces_a_symlink_and_leaves_its_target_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let precious = dir.path().join("precious");
    std::fs::write(&precious, "keep me\n").expect("write");
    // A link someone planted in a shared directory where the user writes the page.
    let link = dir.path().join("page.html");
    std::os::unix::fs::symlink(&precious, &link).expect("symlink");
    let log = fixture("fs-edit");
    let run = show_bounded(&[log.to_str().expect("utf-8"), "--html", link.to_str().expect("utf-8")], &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&precious).expect("target"), "keep me\n", "the link was followed");
    let page = std::fs::symlink_metadata(&link).expect("page");
    assert!(page.is_file(), "the page replaced the link");
    assert!(std::fs::read_to_string(&link).expect("page").starts_with("<!DOCTYPE html>"));
}

#[cfg(not(unix))]
#[test]
fn unix_only_tests() {
    for test in [
        "a_fifo_or_a_device_as_the_log_is_refused_at_once",
        "html_into_a_fifo_is_refused_at_once_and_the_fifo_is_left_alone",
        "html_replaces_a_symlink_and_leaves_its_target_alone",
    ] {
        eprintln!("SKIPPED {test}: FIFOs, /dev/zero and unprivileged symbolic links are Unix's");
    }
}
