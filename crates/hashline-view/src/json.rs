//! Defensive narrowing of untrusted JSON values (logged metas and arguments).

use serde_json::{Map, Value};

/// A non-negative JSON integer. Integral floats such as `2.0` count as integers (JSON has one
/// number type); fractions, negatives and non-numbers do not.
pub(crate) fn uint(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    if let Some(n) = number.as_u64() {
        return Some(n);
    }
    let float = number.as_f64()?;
    // 2^64 is exactly representable; every integral float below it fits in a u64.
    let in_range = (0.0..18_446_744_073_709_551_616.0).contains(&float);
    (in_range && float.fract() == 0.0).then_some(float as u64)
}

/// A non-negative JSON integer that fits in a `u32` (line numbers and counts of lines).
pub(crate) fn u32_of(value: &Value) -> Option<u32> {
    uint(value).and_then(|n| u32::try_from(n).ok())
}

/// An optional field: `Ok(None)` when absent, `Err(())` when present but rejected by `narrow`.
pub(crate) fn optional<'a, T>(
    object: &'a Map<String, Value>,
    key: &str,
    narrow: impl FnOnce(&'a Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    object.get(key).map_or(Ok(None), |v| narrow(v).map(Some).ok_or(()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn uint_accepts_integers_and_integral_floats() {
        assert_eq!(uint(&json!(0)), Some(0));
        assert_eq!(uint(&json!(7)), Some(7));
        assert_eq!(uint(&json!(2.0)), Some(2));
        assert_eq!(uint(&json!(u64::MAX)), Some(u64::MAX));
    }

    #[test]
    fn uint_rejects_fractions_negatives_and_non_numbers() {
        for value in [json!(1.5), json!(-1), json!(-1.0), json!(1e20), json!("2"), json!(null), json!(true), json!([1])]
        {
            assert_eq!(uint(&value), None, "{value}");
        }
    }

    #[test]
    fn u32_of_rejects_values_too_large() {
        assert_eq!(u32_of(&json!(u32::MAX)), Some(u32::MAX));
        assert_eq!(u32_of(&json!(u64::from(u32::MAX) + 1)), None);
        assert_eq!(u32_of(&json!(1e10)), None);
    }

    #[test]
    fn optional_distinguishes_absent_from_rejected() {
        let object = json!({"a": "x", "b": 1});
        let object = object.as_object().expect("object literal");
        assert_eq!(optional(object, "a", Value::as_str), Ok(Some("x")));
        assert_eq!(optional(object, "b", Value::as_str), Err(()));
        assert_eq!(optional(object, "c", Value::as_str), Ok(None));
    }
}
