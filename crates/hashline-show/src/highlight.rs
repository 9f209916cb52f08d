//! Syntax highlighting of card lines with syntect (Sublime Text grammars, pure-Rust regexes).
//!
//! A card shows a window of a file or the two sides of a hunk, not whole files, so lines are
//! highlighted one after another with the parser state carried from line to line; a window
//! that starts inside a block comment may be coloured wrongly until the comment ends, and
//! nothing worse. Lines longer than [`MAX_HIGHLIGHTED_LINE`] bytes stay plain (regex-based
//! grammars can be slow on them).

use std::ops::Range;

use syntect::easy::HighlightLines;
use syntect::highlighting::{Color, FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

/// Lines longer than this many bytes are not highlighted.
pub const MAX_HIGHLIGHTED_LINE: usize = 4096;

/// Which theme colours the tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Palette {
    /// For a dark terminal background.
    Dark,
    /// For a light page background.
    Light,
}

/// The look of one token: a colour when it differs from the theme's text colour, and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TokenStyle {
    /// The foreground colour as RGB, or `None` for the default text colour.
    pub rgb: Option<[u8; 3]>,
    /// Bold text.
    pub bold: bool,
    /// Italic text.
    pub italic: bool,
}

impl TokenStyle {
    /// Whether the token looks like plain text.
    pub fn is_plain(self) -> bool {
        self == TokenStyle::default()
    }
}

/// One token of a line: a byte range of the line and its look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The byte range in the line.
    pub range: Range<usize>,
    /// The look.
    pub style: TokenStyle,
}

/// A syntax highlighter: the default grammars and one theme, loaded once.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Theme,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter").field("theme", &self.theme.name).finish_non_exhaustive()
    }
}

impl Highlighter {
    /// The default grammars with the palette's theme (`base16-ocean.dark` or `InspiredGitHub`).
    pub fn new(palette: Palette) -> Self {
        let name = match palette {
            Palette::Dark => "base16-ocean.dark",
            Palette::Light => "InspiredGitHub",
        };
        let mut themes = ThemeSet::load_defaults().themes;
        let theme = themes.remove(name).unwrap_or_default();
        Self { syntaxes: SyntaxSet::load_defaults_newlines(), theme }
    }

    /// Whether `lang` (a [`lang_from_path`](hashline_view::lang_from_path) id) has a grammar.
    pub fn knows(&self, lang: &str) -> bool {
        self.syntax(lang).is_some()
    }

    /// The tokens of consecutive `lines` of one file in language `lang`; every line is covered
    /// by its tokens, in order. Unknown languages and over-long lines give one plain token.
    pub fn tokens(&self, lang: Option<&str>, lines: &[&str]) -> Vec<Vec<Token>> {
        let Some(syntax) = lang.and_then(|lang| self.syntax(lang)) else {
            return lines.iter().map(|line| plain(line)).collect();
        };
        let mut state = HighlightLines::new(syntax, &self.theme);
        let default = self.theme.settings.foreground;
        let mut broken = false;
        let mut buffer = String::new();
        lines
            .iter()
            .map(|line| {
                if broken || line.len() > MAX_HIGHLIGHTED_LINE {
                    return plain(line);
                }
                buffer.clear();
                buffer.push_str(line);
                buffer.push('\n');
                match state.highlight_line(&buffer, &self.syntaxes) {
                    Ok(pieces) => spans(line, pieces.iter().map(|(style, text)| (*style, text.len())), default),
                    Err(_) => {
                        broken = true;
                        plain(line)
                    }
                }
            })
            .collect()
    }

    fn syntax(&self, lang: &str) -> Option<&SyntaxReference> {
        let extension = match lang {
            "ts" | "tsx" | "jsx" => "js",
            "mdx" => "md",
            "scss" | "less" => "css",
            other => other,
        };
        self.syntaxes.find_syntax_by_extension(extension).filter(|s| s.name != "Plain Text")
    }
}

/// The whole line as one plain token.
fn plain(line: &str) -> Vec<Token> {
    vec![Token { range: 0..line.len(), style: TokenStyle::default() }]
}

/// Byte ranges of `line` from syntect's pieces (which cover `line` plus its `\n`), with
/// neighbouring pieces of one look merged.
fn spans(
    line: &str,
    pieces: impl Iterator<Item = (syntect::highlighting::Style, usize)>,
    default: Option<Color>,
) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    let mut at = 0;
    for (style, len) in pieces {
        let end = (at + len).min(line.len());
        if end > at {
            let look = TokenStyle {
                rgb: (Some(style.foreground) != default).then_some([
                    style.foreground.r,
                    style.foreground.g,
                    style.foreground.b,
                ]),
                bold: style.font_style.contains(FontStyle::BOLD),
                italic: style.font_style.contains(FontStyle::ITALIC),
            };
            // Whitespace looks like its neighbour whatever its colour: one span fewer.
            let blank = line[at..end].bytes().all(|b| b == b' ' || b == b'\t');
            match tokens.last_mut() {
                Some(last) if last.style == look || blank => last.range.end = end,
                _ => tokens.push(Token { range: at..end, style: look }),
            }
        }
        at = end;
    }
    if tokens.is_empty() || at < line.len() {
        tokens.push(Token { range: at..line.len(), style: TokenStyle::default() });
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(line: &'a str, tokens: &[Token]) -> Vec<&'a str> {
        tokens.iter().map(|t| &line[t.range.clone()]).collect()
    }

    #[test]
    fn rust_keywords_are_coloured_and_tokens_cover_the_line() {
        let highlighter = Highlighter::new(Palette::Light);
        let lines = ["fn main() {", "    let x = \"s\"; // c", "}"];
        let tokens = highlighter.tokens(Some("rs"), &lines);
        assert_eq!(tokens.len(), 3);
        for (line, tokens) in lines.iter().zip(&tokens) {
            assert_eq!(texts(line, tokens).concat(), *line);
        }
        let keyword = tokens[0].iter().find(|t| lines[0][t.range.clone()].starts_with("fn")).expect("fn is a token");
        assert!(!keyword.style.is_plain(), "{keyword:?}");
    }

    #[test]
    fn unknown_languages_and_long_lines_stay_plain() {
        let highlighter = Highlighter::new(Palette::Dark);
        assert!(!highlighter.knows("toml-ish") && highlighter.knows("py") && highlighter.knows("tsx"));
        let tokens = highlighter.tokens(Some("nope"), &["a b"]);
        assert_eq!(tokens, vec![plain("a b")]);
        let long = "x".repeat(MAX_HIGHLIGHTED_LINE + 1);
        assert_eq!(highlighter.tokens(Some("rs"), &[&long]), vec![plain(&long)]);
        assert_eq!(highlighter.tokens(Some("rs"), &[""]), vec![plain("")]);
    }
}
