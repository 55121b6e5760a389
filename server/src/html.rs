//! What the pages are written with: escaping, the frame every page shares, and links.
//! Every text from a player or a database goes through `escape` before it meets HTML.

use std::fmt::Write;

/// `text` safe inside HTML, between tags or in a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as one value in a URL's query: every byte but the unreserved ones, `:` and
/// `/` percent-encoded.
pub fn query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b':' | b'/' => {
                out.push(char::from(byte))
            }
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

/// A whole page: `title` (plain text) and `body` (HTML, already escaped).
pub fn page(title: &str, body: &str) -> String {
    let title = escape(title);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} · Sandglass</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <nav><a href=\"/\">Sandglass board</a> · <a href=\"/daily\">Daily desert</a></nav>\n<h1>{title}</h1>\n{body}\n</body>\n</html>\n"
    )
}

const STYLE: &str = "body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}\
    table{border-collapse:collapse}td,th{padding:.2em .6em;text-align:left}\
    tr:nth-child(even){background:#f3efe6}.proof{color:#555}\
    pre{background:#f3efe6;padding:.5em;overflow-x:auto}";

/// A link: `href` and `text` both escaped here.
pub fn link(href: &str, text: &str) -> String {
    format!("<a href=\"{}\">{}</a>", escape(href), escape(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_text_is_shown_not_run() {
        assert_eq!(
            escape("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"
        );
        assert_eq!(
            link("/a?b=1&c=\"", "<i>"),
            "<a href=\"/a?b=1&amp;c=&quot;\">&lt;i&gt;</a>"
        );
    }

    #[test]
    fn a_query_value_keeps_only_what_cannot_end_it() {
        assert_eq!(
            query_value("http://h:1/replays/ab.sgr?x=1&y=2 #"),
            "http://h:1/replays/ab.sgr%3Fx%3D1%26y%3D2%20%23"
        );
    }
}
