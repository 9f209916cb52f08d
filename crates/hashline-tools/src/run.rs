//! Running a tool on JSON arguments (SPEC §4.1, §4.3): the arguments are prepared against
//! the tool's input schema, the tool runs, adjustments and pending stale-context notices
//! join the text, and the outcome is projected — whole ([`execute`]) or only what the model
//! sees ([`execute_content`]).

use hashline_view::ContentBlock;
use serde_json::Value;

use crate::args::{Prepared, input_shape, prepare};
use crate::budget::{Budget, fit_text};
use crate::error::ToolError;
use crate::result::{CallContext, ToolOutput, ToolResult, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::warning::Warning;

/// Prepares JSON arguments for `T` (SPEC §4.3).
pub fn prepare_args<T: Tool>(raw: Value) -> Result<Prepared<T::Args>, ToolError> {
    prepare(T::NAME, input_shape::<T>(), raw, T::integer_error_code)
}

/// Runs `T` on JSON arguments and returns the typed outcome; argument adjustments
/// become a `params-adjusted` warning.
pub fn run_json<T: Tool>(session: &Session, raw: Value, ctx: &CallContext) -> Result<ToolOutput<T::Value>, ToolError> {
    let Prepared { args, adjustments } = prepare_args::<T>(raw)?;
    let mut output = T::run(session, args, ctx)?;
    if ctx.is_top_level() {
        for warning in session.take_session_warnings().into_iter().rev() {
            let notice = format!("{}\n\n", warning.message);
            output.value.warnings_mut().insert(0, warning);
            match output.content.first_mut() {
                Some(ContentBlock::Text { text }) => text.insert_str(0, &notice),
                _ => output.content.insert(0, ContentBlock::Text { text: notice.trim_end().to_owned() }),
            }
        }
    }
    if !adjustments.is_empty() {
        let warning = Warning::params_adjusted("Params", &adjustments);
        let notice = format!("{}\n\n", warning.message);
        output.value.warnings_mut().insert(0, warning);
        match output.content.first_mut() {
            Some(ContentBlock::Text { text }) => text.insert_str(0, &notice),
            _ => output.content.insert(0, ContentBlock::Text { text: notice.trim_end().to_owned() }),
        }
    }
    Ok(output)
}

/// Runs `T` on JSON arguments and returns only what the model sees, without building the
/// structured projection (the CLI's text mode): the content and whether it is an error.
/// The model is taken to see this text alone ([`CallContext::sees_text_only`]).
pub fn execute_content<T: Tool>(session: &Session, raw: Value, ctx: &CallContext) -> (Vec<ContentBlock>, bool) {
    let ctx = &CallContext { text_only: true, sees_text_only: true, ..ctx.clone() };
    let (mut content, is_error) = match run_json::<T>(session, raw, ctx) {
        Ok(output) => (output.content, false),
        Err(error) => (vec![ContentBlock::Text { text: error.text() }], true),
    };
    add_stale_notices(session, ctx, &mut content);
    fit_content(&mut content, ctx);
    (content, is_error)
}

/// Runs `T` on JSON arguments and projects the outcome (SPEC §4.1).
pub fn execute<T: Tool>(session: &Session, raw: Value, ctx: &CallContext) -> ToolResult {
    let mut result = match run_json::<T>(session, raw, ctx) {
        Ok(output) => ToolResult::success(T::NAME, output, ctx),
        Err(error) => ToolResult::failure(T::NAME, &error),
    };
    add_stale_notices(session, ctx, &mut result.content);
    fit_content(&mut result.content, ctx);
    result
}

/// Projects an outcome a front end got from a tool's library function rather than from JSON
/// arguments (the CLI's `undo --to`, [`crate::edit::revert_to`]) as [`execute`] projects a
/// call's: the pending stale-context notices join the text, which is held to the budget.
pub fn project<V: ToolValue>(
    session: &Session,
    tool: &str,
    outcome: Result<ToolOutput<V>, ToolError>,
    ctx: &CallContext,
) -> ToolResult {
    let mut result = match outcome {
        Ok(output) => ToolResult::success(tool, output, ctx),
        Err(error) => ToolResult::failure(tool, &error),
    };
    add_stale_notices(session, ctx, &mut result.content);
    fit_content(&mut result.content, ctx);
    result
}

/// Holds a top-level result's text to the call's byte budget ([`fit_text`]), the blocks
/// together; a nested call's text is its caller's to fit.
fn fit_content(content: &mut [ContentBlock], ctx: &CallContext) {
    if !ctx.is_top_level() {
        return;
    }
    let mut left = ctx.budget.bytes;
    for block in content {
        if let ContentBlock::Text { text } = block {
            fit_text(text, Budget { bytes: left.max(Budget::MIN_BYTES), ..ctx.budget });
            left = left.saturating_sub(text.len() + 2);
        }
    }
}

/// A top-level result carries the pending stale-context notices (SPEC §7.2), once.
fn add_stale_notices(session: &Session, ctx: &CallContext, content: &mut Vec<ContentBlock>) {
    if !ctx.is_top_level() {
        return;
    }
    let notices = session.take_stale_notices();
    if notices.is_empty() {
        return;
    }
    let notice = notices.join("\n");
    match content.first_mut() {
        Some(ContentBlock::Text { text }) => text.insert_str(0, &format!("{notice}\n\n")),
        _ => content.insert(0, ContentBlock::Text { text: notice }),
    }
}
