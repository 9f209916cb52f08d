//! `fixtures/schemas/`: the JSON Schemas of every tool's input and output and of the
//! view union, generated from the types themselves with the tools' schema settings
//! (standard JSON Schema 2020-12: no custom formats).

use std::collections::BTreeMap;

use hashline::Toolbox;
use hashline::tools::schema;
use hashline_view::{ToolCallView, ToolResultView};
use serde_json::{Value, json};

/// File name → pretty JSON text, for every schema file.
pub fn schema_files() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut put = |name: String, value: Value| {
        let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
        files.insert(name, text);
    };
    for tool in Toolbox::new().tools() {
        put(format!("{}.input.json", tool.name), tool.generated_input_schema());
        put(format!("{}.output.json", tool.name), tool.output_schema());
    }
    let view = |schema: schemars::Schema| schema.to_value();
    put(
        "views.json".to_owned(),
        json!({
            "ToolCallView": view(schema::settings().into_generator().into_root_schema_for::<ToolCallView>()),
            "ToolResultView": view(schema::settings().into_generator().into_root_schema_for::<ToolResultView>()),
        }),
    );
    files
}
