//! A route's query string, read in one place: only the parameters the route
//! knows, each given once (a name and its JSON spelling count as one, as
//! for a JSON field given twice), values percent-decoded. A misspelt or
//! repeated parameter is refused rather than read as its default or its
//! first value.

use super::ApiError;

/// One parameter a route reads: its proto name and its JSON (lowerCamel)
/// name, the same when it is one word.
pub(super) type Param = (&'static str, &'static str);

/// The values of `params` in `raw`, in the same order (`None`: not given).
pub(super) fn read<const N: usize>(
    raw: Option<&str>,
    params: [Param; N],
) -> Result<[Option<String>; N], ApiError> {
    let mut values: [Option<String>; N] = std::array::from_fn(|_| None);
    for (name, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        let Some(i) = params
            .iter()
            .position(|(proto, json)| name == *proto || name == *json)
        else {
            let known: Vec<_> = params.iter().map(|(proto, _)| *proto).collect();
            return Err(ApiError::bad_json(format!(
                "unknown query parameter {} (this route reads: {})",
                crate::error::clip(&name),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        };
        if values[i].replace(value.into_owned()).is_some() {
            return Err(ApiError::bad_json(format!(
                "query parameter {} is given more than once",
                params[i].0
            )));
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: [Param; 2] = [("max", "max"), ("page_token", "pageToken")];

    #[test]
    fn reads_known_parameters_decoded() {
        let [max, token] = read(Some("pageToken=a%2Bb&max=3"), PAGE).unwrap();
        assert_eq!(max.as_deref(), Some("3"));
        assert_eq!(token.as_deref(), Some("a+b"));
        assert_eq!(read(None, PAGE).unwrap(), [None, None]);
        assert_eq!(read(Some(""), PAGE).unwrap(), [None, None]);
    }

    #[test]
    fn refuses_unknown_and_repeated_parameters() {
        let message = |q| read(Some(q), PAGE).unwrap_err().message;
        assert!(message("mx=3").contains("unknown query parameter \"mx\""));
        assert!(message("max=3&max=4").contains("max is given more than once"));
        assert!(message("page_token=a&pageToken=b").contains("page_token is given more"));
    }
}
