//! SPEC §11's symbol and syntax targets on a 10k-line Rust file, each printed as a ratio
//! beside its target from one interleaved run after the criterion figures:
//! - a symbol map ≤ 1.5× one tree-sitter parse of the file;
//! - a cached map ≤ 0.1 ms;
//! - one anchored edit with `syntaxValidate: warn` ≤ 2.5× one parse — without and with the
//!   session's tree of the pre-image, and beside the same edit with `syntaxValidate: off`
//!   (the difference is the syntax check).
//!
//! Then issue 23's session figures on an 11,569-line C file, in one interleaved run: one
//! anchored edit with `syntaxValidate: warn` after a `read` of a window of the file in the
//! same (stateful) session, beside the same edit with the check off (target ≤ 1.5×); the
//! same edit in a session whose read does not keep the tree (as before issue 23: the check
//! parses the old file first); and the read itself with and without keeping the tree.
//!
//! Then issue 24's: in every language of the registry, the map of a 10k-line file (the
//! language's acceptance sample grown by its filler declarations) beside one parse of it
//! (target ≤ 1.5×). `LANGUAGES_ONLY=1` runs only that part; `SESSION_ONLY=1` only issue 23's
//! session ratios (the syntax check after a read).

mod support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BatchSize, Criterion};
use hashline_core::{Anchor, Document, LineNo};
use hashline_symbols::{FileStamp, MapCache, map_document, render_map};
use hashline_syntax::{LanguageId, ParseLimits, census, parse_document};
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::tree_cache::CachedTree;
use hashline_tools::{CallContext, Session, SessionConfig, execute};
use serde_json::{Value, json};
use support::{
    benchmarking, interleaved, interleaved_samples, load_average, ratio_line, spread_line, time_line, timed,
};

/// The 1-based line the timed edit replaces (mid-file, as in the CLI edit bench).
const EDIT_LINE: u32 = 5_000;
/// Rounds of the interleaved ratio run.
const ROUNDS: usize = 30;

/// The file, its scratch directory and the ways to edit it.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    file: PathBuf,
    pristine: Vec<u8>,
    doc: Document,
}

impl Fixture {
    fn new() -> Self {
        let pristine = support::ten_k_lines().into_bytes();
        let dir = tempfile::tempdir().expect("a scratch directory");
        let root = dir.path().to_path_buf();
        let file = root.join("ten_k.rs");
        std::fs::write(&file, &pristine).expect("the input is written");
        let doc = Document::parse(pristine.clone());
        Fixture { _dir: dir, root, file, pristine, doc }
    }

    fn restore(&self) {
        std::fs::write(&self.file, &self.pristine).expect("the file restores");
    }

    /// A fresh stateless session (a lone `hashline edit` call), with the tree of the
    /// pristine file already kept when `warm` (as after the session's previous edit).
    fn session(&self, warm: bool) -> Session {
        let session =
            Session::new(SessionConfig::builder().root(&self.root).stateful(false).build()).expect("a session");
        if warm {
            let key = session.resolve(&self.file.to_string_lossy()).expect("the file resolves").key;
            let parsed = parse_document(LanguageId::Rust, &self.doc, ParseLimits::DEFAULT).expect("it parses");
            let census = census(&parsed.tree, &self.doc, parsed.text_start);
            session.syntax_trees().put(&key, &self.pristine, CachedTree { parsed, census });
        }
        session
    }

    /// One `set_line` at `EDIT_LINE`.
    fn args(&self, mode: &str) -> Value {
        let line = self.doc.line(LineNo::new(EDIT_LINE).expect("nonzero")).expect("the file is long enough");
        let anchor = Anchor::new(line.number, line.hash()).to_string();
        json!({
            "path": self.file.to_string_lossy(),
            "edits": [{ "set_line": { "anchor": anchor, "new_text": "    let edited = value.checked_add(1);" } }],
            "syntaxValidate": mode,
        })
    }

    /// Restores the file, then times one edit call.
    fn timed_edit(&self, mode: &str, warm: bool) -> Duration {
        self.restore();
        let (session, args) = (self.session(warm), self.args(mode));
        let mut result = None;
        let time = timed(|| result = Some(execute::<EditTool>(&session, black_box(args), &CallContext::top_level())));
        let result = result.expect("ran");
        assert!(!result.is_error, "the edit applies: {}", result.text());
        time
    }
}

fn parse(doc: &Document) {
    let parsed = parse_document(LanguageId::Rust, doc, ParseLimits::DEFAULT).expect("it parses");
    black_box(parsed);
}

fn map(doc: &Document) {
    black_box(map_document("ten_k.rs", doc).expect("rust has maps").expect("it parses"));
}

/// A cached map as `read` gets it: the file's mtime, the stamp of its bytes, the lookup.
fn cached_map(cache: &MapCache, file: &Path, doc: &Document) {
    let mtime = std::fs::metadata(file).ok().and_then(|m| m.modified().ok());
    let stamp = FileStamp::of(doc.as_bytes(), mtime);
    let map = cache.get_or_build(file, stamp, || Err::<_, ()>(())).expect("the map is cached");
    black_box(map);
}

fn criterion_benches(c: &mut Criterion, fixture: &Fixture) {
    let doc = &fixture.doc;
    let cache = MapCache::new();
    cached_map_prime(&cache, fixture);
    let mut group = c.benchmark_group("symbols_10k_lines");
    group.sample_size(30);
    group.bench_function("tree_sitter_parse", |b| b.iter(|| parse(doc)));
    group.bench_function("symbol_map", |b| b.iter(|| map(doc)));
    group.bench_function("cached_map", |b| b.iter(|| cached_map(&cache, &fixture.file, doc)));
    let built = map_document("ten_k.rs", doc).expect("rust has maps").expect("it parses");
    group.bench_function("render_map", |b| b.iter(|| black_box(render_map("ten_k.rs", &built))));
    group.finish();

    let mut group = c.benchmark_group("edit_10k_lines_one_set_line");
    group.sample_size(30);
    for (name, mode, warm) in
        [("validate_off", "off", false), ("validate_warn", "warn", false), ("validate_warn_kept_tree", "warn", true)]
    {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    fixture.restore();
                    (fixture.session(warm), fixture.args(mode))
                },
                |(session, args)| {
                    let result = execute::<EditTool>(&session, black_box(args), &CallContext::top_level());
                    (session, result)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn cached_map_prime(cache: &MapCache, fixture: &Fixture) {
    let mtime = std::fs::metadata(&fixture.file).ok().and_then(|m| m.modified().ok());
    let stamp = FileStamp::of(&fixture.pristine, mtime);
    cache
        .get_or_build(&fixture.file, stamp, || map_document("ten_k.rs", &fixture.doc).expect("rust has maps"))
        .expect("it maps");
}

/// The SPEC §11 ratios, from one interleaved run.
fn ratios(fixture: &Fixture) {
    let doc = &fixture.doc;
    let cache = MapCache::new();
    fixture.restore();
    cached_map_prime(&cache, fixture);
    let times = interleaved(
        ROUNDS,
        &mut [&mut || timed(|| parse(doc)), &mut || timed(|| map(doc)), &mut || {
            timed(|| cached_map(&cache, &fixture.file, doc))
        }],
    );
    let (parse_time, map_time, cached) = (times[0], times[1], times[2]);
    println!(
        "\nSPEC §11 symbol targets ({} lines, {} bytes; medians of {ROUNDS} interleaved rounds):",
        doc.line_count(),
        doc.as_bytes().len()
    );
    ratio_line("symbol map / one parse", map_time, parse_time, "parse", 1.5);
    time_line("cached map (stat, stamp, lookup)", cached, Duration::from_micros(100));

    let times = interleaved(
        ROUNDS,
        &mut [
            &mut || timed(|| parse(doc)),
            &mut || fixture.timed_edit("off", false),
            &mut || fixture.timed_edit("warn", false),
            &mut || fixture.timed_edit("warn", true),
        ],
    );
    let (parse_time, off, warn, kept) = (times[0], times[1], times[2], times[3]);
    println!("\nSPEC §11 edit target (one set_line at line {EDIT_LINE}, in-process tool, fresh session each):");
    ratio_line("edit, syntaxValidate warn / one parse", warn, parse_time, "parse", 2.5);
    ratio_line("edit, warn, session kept the tree / parse", kept, parse_time, "parse", 2.5);
    println!(
        "  of which: edit with syntaxValidate off {:.3} ms; the check adds {:.3} ms ({:.2} parses) without the kept tree, {:.3} ms ({:.2} parses) with it",
        support::ms(off),
        support::ms(warn.saturating_sub(off)),
        warn.saturating_sub(off).as_secs_f64() / parse_time.as_secs_f64(),
        support::ms(kept.saturating_sub(off)),
        kept.saturating_sub(off).as_secs_f64() / parse_time.as_secs_f64(),
    );
}

/// The C file of issue 23 in a scratch directory, edited through stateful sessions that
/// read it first.
struct CSession {
    _dir: tempfile::TempDir,
    root: PathBuf,
    file: PathBuf,
    pristine: Vec<u8>,
    doc: Document,
}

/// The window the session reads (a model's 1,400-line window) and the line it then edits.
const C_READ: (usize, usize) = (5_000, 1_400);
const C_EDIT_LINE: u32 = 5_500;

impl CSession {
    fn new() -> Self {
        let pristine = support::generated_c().into_bytes();
        let dir = tempfile::tempdir().expect("a scratch directory");
        let root = dir.path().to_path_buf();
        let file = root.join("driver.c");
        std::fs::write(&file, &pristine).expect("the input is written");
        let doc = Document::parse(pristine.clone());
        assert_eq!(doc.line_count(), support::C_LINES);
        CSession { _dir: dir, root, file, pristine, doc }
    }

    fn session(&self, parse_on_read: bool) -> Session {
        Session::new(SessionConfig::builder().root(&self.root).parse_on_read(parse_on_read).build()).expect("a session")
    }

    fn read_args(&self) -> Value {
        json!({ "path": self.file.to_string_lossy(), "offset": C_READ.0, "limit": C_READ.1 })
    }

    /// Restores the file, then times a window read in a fresh session.
    fn timed_read(&self, parse_on_read: bool) -> Duration {
        self.restore();
        let session = self.session(parse_on_read);
        let mut result = None;
        let time = timed(|| {
            result = Some(execute::<ReadTool>(&session, black_box(self.read_args()), &CallContext::top_level()))
        });
        assert!(!result.expect("ran").is_error);
        // The background parse is not this read's time, but must not overlap the next.
        wait_for_parses(&session);
        time
    }

    /// Restores the file, reads the window in a fresh session, lets a model's turn pass
    /// (the read's background parse ends; untimed), then times one `set_line`.
    fn timed_edit(&self, mode: &str, parse_on_read: bool) -> Duration {
        self.restore();
        let session = self.session(parse_on_read);
        let read = execute::<ReadTool>(&session, self.read_args(), &CallContext::top_level());
        assert!(!read.is_error, "{}", read.text());
        wait_for_parses(&session);
        let line = self.doc.line(LineNo::new(C_EDIT_LINE).expect("nonzero")).expect("the file is long enough");
        let args = json!({
            "path": self.file.to_string_lossy(),
            "edits": [{ "set_line": { "anchor": Anchor::new(line.number, line.hash()).to_string(), "new_text": "    total += 7; /* edited */" } }],
            "syntaxValidate": mode,
        });
        let mut result = None;
        let time = timed(|| result = Some(execute::<EditTool>(&session, black_box(args), &CallContext::top_level())));
        let result = result.expect("ran");
        assert!(!result.is_error, "the edit applies: {}", result.text());
        assert_eq!(result.ptc_value()["syntax"]["checked"], mode != "off");
        time
    }

    fn restore(&self) {
        std::fs::write(&self.file, &self.pristine).expect("the file restores");
    }

    /// One fresh parse of the file (it has no syntax error).
    fn parse(&self) {
        let parsed = parse_document(LanguageId::C, &self.doc, ParseLimits::DEFAULT).expect("it parses");
        assert!(!black_box(parsed).tree.root_node().has_error());
    }
}

fn wait_for_parses(session: &Session) {
    while session.syntax_trees().parsing() > 0 {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Issue 23's ratios, from one interleaved run.
fn c_session_ratios() {
    let c = CSession::new();
    let load = load_average();
    let times = interleaved_samples(
        ROUNDS,
        &mut [
            &mut || c.timed_edit("off", true),
            &mut || c.timed_edit("warn", true),
            &mut || c.timed_edit("warn", false),
            &mut || c.timed_read(false),
            &mut || c.timed_read(true),
            &mut || timed(|| c.parse()),
            // The reads again in the other order, so that neither always follows the same op.
            &mut || c.timed_read(true),
            &mut || c.timed_read(false),
        ],
    );
    let reads = |a: usize, b: usize| -> Vec<Duration> { times[a].iter().chain(&times[b]).copied().collect() };
    let (read_before, read_kept) = (reads(3, 7), reads(4, 6));
    println!(
        "\nIssue 23, a session on a {}-line C file ({} bytes): read lines {}-{}, then one set_line at line {C_EDIT_LINE}; medians of {ROUNDS} interleaved rounds, load average {load} before, {} after:",
        c.doc.line_count(),
        c.pristine.len(),
        C_READ.0,
        C_READ.0 + C_READ.1 - 1,
        load_average()
    );
    spread_line("edit after a read, warn / off", &times[1], &times[0], 1.5);
    spread_line("edit after a read that kept no tree, warn / off", &times[2], &times[0], f64::INFINITY);
    spread_line("read keeping the tree / read as before", &read_kept, &read_before, 1.5);
    println!(
        "  for scale: one fresh parse of the file {:.3} ms; the edit with the check off {:.3} ms (the write is durable)",
        support::ms(support::median(times[5].clone())),
        support::ms(support::median(times[0].clone()))
    );
}

/// What the bench takes from a language's `cases.toml`.
#[derive(serde::Deserialize)]
struct LanguageCases {
    sample: String,
    long: LongCase,
}

#[derive(serde::Deserialize)]
struct LongCase {
    repeat: String,
}

/// Two files of at least 10,000 lines in `lang`, with the sample's file name: its acceptance
/// sample repeated (a realistic density of declarations; a repeated header such as Go's
/// `package` clause may be a syntax error, which both sides parse alike), and the sample followed
/// by its filler declarations (`long.repeat` of its `cases.toml`, numbered: a declaration every
/// few lines, the dense case).
fn ten_k_lines_of(lang: LanguageId) -> (String, Document, Document) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hashline-syntax/languages").join(lang.name());
    let cases = std::fs::read_to_string(folder.join("cases.toml")).expect("the language's cases");
    let cases: LanguageCases = toml::from_str(&cases).expect("cases.toml parses");
    let mut sample = std::fs::read_to_string(folder.join(&cases.sample)).expect("the sample");
    if !sample.ends_with('\n') {
        sample.push('\n');
    }
    let mut repeated = String::new();
    while repeated.lines().count() < 10_000 {
        repeated.push_str(&sample);
    }
    let mut dense = sample.clone();
    let mut n = 0;
    while dense.lines().count() < 10_000 {
        n += 1;
        dense.push_str(&cases.long.repeat.replace("{n}", &n.to_string()));
    }
    (cases.sample, Document::parse(repeated.into_bytes()), Document::parse(dense.into_bytes()))
}

/// The median parse and map of `doc` as `file`, interleaved.
fn parse_and_map(lang: LanguageId, file: &str, doc: &Document) -> (Duration, Duration) {
    let parse_once = || black_box(parse_document(lang, doc, ParseLimits::DEFAULT).expect("it parses"));
    let map_once = || black_box(map_document(file, doc).expect("a language").expect("it parses"));
    let times = interleaved(ROUNDS, &mut [&mut || timed(|| drop(parse_once())), &mut || timed(|| drop(map_once()))]);
    (times[0], times[1])
}

/// Issue 24: the map of a 10k-line file ≤ 1.5× one parse of it, in every registry language
/// (one interleaved run per language and file).
fn every_language_map_ratios() {
    println!(
        "\nIssue 24, the map of a 10k-line file / one parse of it (target ≤ 1.5×) in every registry language: the sample repeated, and the sample plus dense filler declarations; medians of {ROUNDS} interleaved rounds, load average {}:",
        load_average()
    );
    let mut met = 0;
    for &lang in LanguageId::ALL {
        let (file, repeated, dense) = ten_k_lines_of(lang);
        let (parse, map) = parse_and_map(lang, &file, &repeated);
        let ratio = map.as_secs_f64() / parse.as_secs_f64();
        let (dense_parse, dense_map) = parse_and_map(lang, &file, &dense);
        met += usize::from(ratio <= 1.5);
        println!(
            "  {:<12} {:>6} lines  parse {:>8.3} ms  map {:>8.3} ms  {ratio:.2}× {:<8} dense: {:.2}×",
            lang.display_name(),
            repeated.line_count(),
            support::ms(parse),
            support::ms(map),
            if ratio <= 1.5 { "met" } else { "NOT met" },
            dense_map.as_secs_f64() / dense_parse.as_secs_f64(),
        );
    }
    println!("  met in {met} of {} languages (the sample repeated)", LanguageId::ALL.len());
}

fn main() {
    if std::env::var_os("LANGUAGES_ONLY").is_some() {
        every_language_map_ratios();
        return;
    }
    // Only issue 23's session ratios (the syntax check after a read).
    if std::env::var_os("SESSION_ONLY").is_some() {
        c_session_ratios();
        return;
    }
    let fixture = Fixture::new();
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c, &fixture);
    c.final_summary();
    if benchmarking() {
        ratios(&fixture);
        c_session_ratios();
        every_language_map_ratios();
    }
}
