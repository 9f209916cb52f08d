//! The fixture machinery itself: `--check` passes on the committed fixtures and fails,
//! naming the fixture, on drift, orphans and missing files; replay from a log alone (the
//! workspace gone) gives the views the live run drew; damaged logs never panic.

use std::path::{Path, PathBuf};

use hashline::replay::{EventView, replay};
use hashline::tools::log::read_log;
use hashline_fixtures::{FixtureError, check, discover};

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A scratch copy of the committed fixtures (sessions and schemas).
fn scratch_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy(&committed(), dir.path());
    dir
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").filter_map(Result::ok) {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

fn problems(result: Result<(), FixtureError>) -> Vec<String> {
    match result {
        Ok(()) => Vec::new(),
        Err(FixtureError::Check(problems)) => problems.iter().map(ToString::to_string).collect(),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[test]
fn committed_fixtures_match_their_recordings() {
    assert_eq!(problems(check(&committed())), Vec::<String>::new());
}

#[test]
fn the_named_fixtures_exist() {
    let names: Vec<String> = discover(&committed()).expect("discover").into_iter().map(|f| f.name).collect();
    for name in [
        "fs-read",
        "fs-read-window",
        "fs-edit",
        "fs-policy-reject",
        "fs-write-overwrite",
        "parallel-tool-calls",
        "agent-instructions",
        "workspace-edit",
    ] {
        assert!(names.iter().any(|n| n == name), "missing fixture {name}");
    }
}

#[test]
fn check_fails_on_drift_naming_the_fixture() {
    let dir = scratch_copy();
    let log = dir.path().join("sessions/fs-read/session.jsonl");
    let text = std::fs::read_to_string(&log).expect("read");
    std::fs::write(&log, text.replacen("hello", "hellO", 1)).expect("write");
    let found = problems(check(dir.path()));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("[fs-read] session.jsonl drifted:"), "{}", found[0]);
}

#[test]
fn check_fails_on_orphans_and_missing_files() {
    let dir = scratch_copy();
    std::fs::write(dir.path().join("sessions/fs-edit/notes.txt"), "stray").expect("write");
    std::fs::remove_file(dir.path().join("sessions/fs-read-window/views.jsonl")).expect("remove");
    std::fs::create_dir_all(dir.path().join("sessions/empty-folder")).expect("mkdir");
    std::fs::write(dir.path().join("schemas/old.json"), "{}").expect("write");
    std::fs::write(dir.path().join("sessions/README"), "stray").expect("write");
    let found = problems(check(dir.path()));
    let joined = found.join("\n");
    assert!(joined.contains("[fs-edit] orphan file notes.txt"), "{joined}");
    assert!(joined.contains("[fs-read-window] missing views.jsonl"), "{joined}");
    assert!(joined.contains("[empty-folder] missing session.json"), "{joined}");
    assert!(joined.contains("[schemas] orphan file old.json"), "{joined}");
    assert!(joined.contains("[README] orphan file sessions/README"), "{joined}");
}

#[test]
fn replay_from_the_log_alone_draws_the_live_views() {
    let mut cards = 0;
    for fixture in discover(&committed()).expect("discover") {
        // Recording runs in a scratch workspace that is deleted before it returns.
        let recording = fixture.record().expect("record");
        let log = read_log(&recording.log);
        assert!(log.damage.is_none(), "{}: {:?}", fixture.name, log.damage);
        let replayed: Vec<EventView> = replay(&log);
        let live: Vec<EventView> =
            recording.views.lines().map(|l| serde_json::from_str(l).expect("view line")).collect();
        assert_eq!(replayed, live, "{}", fixture.name);
        cards += live.iter().filter(|v| matches!(v, EventView::Result { view: Some(_), .. })).count();
    }
    assert!(cards > 20, "results with cards: {cards}");
}

#[test]
fn fs_policy_reject_shows_the_refusal_then_the_read_then_the_edit() {
    let text = std::fs::read_to_string(committed().join("sessions/fs-policy-reject/session.jsonl")).expect("log");
    let log = read_log(&text);
    let codes: Vec<Option<String>> = log
        .events
        .iter()
        .filter_map(|e| match e {
            hashline::tools::log::LogEvent::Result { result, .. } => {
                Some(result.error.as_ref().map(|e| e.code.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(codes, [Some("file-not-read".to_owned()), None, None]);
    assert!(text.lines().last().is_some_and(|l| l.contains("\"diffs\":[{")), "the edit carries diff meta");
}

#[test]
fn parallel_results_come_in_call_order_with_their_own_meta() {
    let text = std::fs::read_to_string(committed().join("sessions/parallel-tool-calls/session.jsonl")).expect("log");
    let kinds: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            format!("{} {}", v["type"].as_str().unwrap_or(""), v["callId"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        kinds,
        ["tool/call call_read_a", "tool/call call_read_b", "tool/result call_read_a", "tool/result call_read_b"]
    );
    assert!(text.contains("\"text\":\"alpha\"") && text.contains("\"text\":\"beta\""));
}

/// Valid logs with fields removed, retyped, reordered and truncated: the reader and
/// replay never panic, and damage is reported, not hidden.
#[test]
fn mutated_logs_never_panic() {
    let mut cases = 0;
    for fixture in discover(&committed()).expect("discover") {
        let text = std::fs::read_to_string(fixture.dir.join("session.jsonl")).expect("log");
        for cut in (0..text.len()).step_by(37) {
            let Some(prefix) = text.get(..cut) else { continue };
            let log = read_log(prefix);
            let _ = replay(&log);
            cases += 1;
        }
        for (index, line) in text.lines().enumerate() {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            for mutated in mutations(&value) {
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                lines[index] = mutated.to_string();
                let log = read_log(&lines.join("\n"));
                assert!(log.damage.is_none());
                let _ = replay(&log);
                for event in &log.events {
                    if let hashline::tools::log::LogEvent::Result { result, .. } = event
                        && let Some(meta) = &result.meta
                    {
                        let _ = hashline::view::read_meta_from_meta(meta);
                    }
                }
                cases += 1;
            }
            let mut reordered: Vec<&str> = text.lines().collect();
            let last = reordered.len() - 1;
            reordered.swap(index, last - index.min(last));
            let _ = replay(&read_log(&reordered.join("\n")));
            cases += 1;
        }
    }
    assert!(cases > 1000, "{cases}");
}

/// Every value reachable in `value` removed, nulled, and retyped, one at a time.
fn mutations(value: &serde_json::Value) -> Vec<serde_json::Value> {
    use serde_json::{Value, json};
    let mut out = Vec::new();
    match value {
        Value::Object(map) => {
            for key in map.keys() {
                let mut removed = map.clone();
                removed.remove(key);
                out.push(Value::Object(removed));
                for replacement in [json!(null), json!(1.5), json!("x"), json!([]), json!({}), json!(-1)] {
                    let mut retyped = map.clone();
                    retyped.insert(key.clone(), replacement);
                    out.push(Value::Object(retyped));
                }
                for inner in mutations(&map[key]).into_iter().take(40) {
                    let mut nested = map.clone();
                    nested.insert(key.clone(), inner);
                    out.push(Value::Object(nested));
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate().take(3) {
                let mut removed = items.clone();
                removed.remove(i);
                out.push(Value::Array(removed));
                for inner in mutations(item).into_iter().take(20) {
                    let mut nested = items.clone();
                    nested[i] = inner;
                    out.push(Value::Array(nested));
                }
            }
        }
        _ => {}
    }
    out
}
