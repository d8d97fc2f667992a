//! Integer size expressions: `SIZE`, `4`, `(SIZE + TPB - 1) / TPB`.
//!
//! Specs name their sizes once (`const:`) and derive grid, block and buffer
//! lengths from them, so a stress run can change `SIZE` and everything else
//! follows. Only integers, names, `+ - * / %` and parentheses are allowed:
//! enough for launch arithmetic, small enough to read at a glance.

use std::collections::BTreeMap;

/// Named integer constants an expression may refer to.
pub type Constants = BTreeMap<String, i64>;

/// Why a size expression has no value: a sentence for the author, which the
/// spec's resolver puts after the field it was in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("empty expression")]
    Empty,
    #[error("number `{0}` is too large")]
    TooLarge(String),
    #[error("unexpected character `{found}` in `{text}`")]
    UnexpectedChar { found: char, text: String },
    /// A token where the expression should have ended.
    #[error("unexpected `{token}` in `{text}`")]
    Trailing { token: String, text: String },
    /// A token where an operand should start.
    #[error("unexpected `{0}`")]
    Unexpected(String),
    #[error("expression ends too early")]
    EndsEarly,
    #[error("missing `)`")]
    MissingParen,
    /// A name not among the constants; `known` lists those there are.
    #[error("unknown constant `{name}` ({})", if known.is_empty() {
        "declare it under `const:`".to_string()
    } else {
        format!("known: {}", known.join(", "))
    })]
    UnknownConstant { name: String, known: Vec<String> },
    #[error("division by zero")]
    DivisionByZero,
    #[error("arithmetic overflow")]
    Overflow,
    #[error("nested more than {} deep", MAX_DEPTH)]
    TooDeep,
}

/// Evaluates `text` against `constants`.
pub fn eval(text: &str, constants: &Constants) -> Result<i64, ExprError> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        constants,
        depth: 0,
    };
    let value = parser.sum()?;
    match parser.tokens.get(parser.pos) {
        None => Ok(value),
        Some(token) => Err(ExprError::Trailing {
            token: token.to_string(),
            text: text.to_string(),
        }),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(i64),
    Name(String),
    Op(char),
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Num(n) => write!(f, "{n}"),
            Token::Name(n) => f.write_str(n),
            Token::Op(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, ExprError> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut end = start;
            while let Some(&(i, d)) = chars.peek() {
                if !(d.is_ascii_digit() || d == '_') {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            let digits: String = text[start..end].chars().filter(|&d| d != '_').collect();
            let n = digits
                .parse()
                .map_err(|_| ExprError::TooLarge(text[start..end].to_string()))?;
            tokens.push(Token::Num(n));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut end = start;
            while let Some(&(i, d)) = chars.peek() {
                if !(d.is_ascii_alphanumeric() || d == '_') {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            tokens.push(Token::Name(text[start..end].to_string()));
        } else if "+-*/%()".contains(c) {
            tokens.push(Token::Op(c));
            chars.next();
        } else {
            return Err(ExprError::UnexpectedChar {
                found: c,
                text: text.to_string(),
            });
        }
    }
    if tokens.is_empty() {
        return Err(ExprError::Empty);
    }
    Ok(tokens)
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    constants: &'a Constants,
    /// Parentheses and minus signs open around the current token.
    depth: usize,
}

/// How deep parentheses and minus signs may nest: far past any launch
/// arithmetic, far short of the stack.
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn next_op(&self, ops: &str) -> Option<char> {
        match self.tokens.get(self.pos) {
            Some(Token::Op(c)) if ops.contains(*c) => Some(*c),
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<i64, ExprError> {
        let mut value = self.product()?;
        while let Some(op) = self.next_op("+-") {
            self.pos += 1;
            let rhs = self.product()?;
            value = if op == '+' {
                value.checked_add(rhs)
            } else {
                value.checked_sub(rhs)
            }
            .ok_or(ExprError::Overflow)?;
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<i64, ExprError> {
        let mut value = self.atom()?;
        while let Some(op) = self.next_op("*/%") {
            self.pos += 1;
            let rhs = self.atom()?;
            if op != '*' && rhs == 0 {
                return Err(ExprError::DivisionByZero);
            }
            value = match op {
                '*' => value.checked_mul(rhs).ok_or(ExprError::Overflow)?,
                '/' => value.checked_div_euclid(rhs).ok_or(ExprError::Overflow)?,
                _ => value.checked_rem_euclid(rhs).ok_or(ExprError::Overflow)?,
            };
        }
        Ok(value)
    }

    /// A parenthesis or a minus sign goes one level deeper; a limit keeps
    /// a pathological expression from exhausting the stack.
    fn nested(&mut self, f: fn(&mut Self) -> Result<i64, ExprError>) -> Result<i64, ExprError> {
        if self.depth >= MAX_DEPTH {
            return Err(ExprError::TooDeep);
        }
        self.depth += 1;
        let value = f(self);
        self.depth -= 1;
        value
    }

    fn atom(&mut self) -> Result<i64, ExprError> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        match token {
            Some(Token::Num(n)) => Ok(n),
            Some(Token::Name(name)) => match self.constants.get(&name) {
                Some(&value) => Ok(value),
                None => Err(ExprError::UnknownConstant {
                    known: self.constants.keys().cloned().collect(),
                    name,
                }),
            },
            Some(Token::Op('(')) => {
                let value = self.nested(Self::sum)?;
                match self.tokens.get(self.pos) {
                    Some(Token::Op(')')) => {
                        self.pos += 1;
                        Ok(value)
                    }
                    _ => Err(ExprError::MissingParen),
                }
            }
            Some(Token::Op('-')) => self
                .nested(Self::atom)?
                .checked_neg()
                .ok_or(ExprError::Overflow),
            Some(other) => Err(ExprError::Unexpected(other.to_string())),
            None => Err(ExprError::EndsEarly),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consts() -> Constants {
        [("SIZE".to_string(), 15), ("TPB".to_string(), 8)]
            .into_iter()
            .collect()
    }

    #[test]
    fn evaluates_table() {
        let cases = [
            ("4", 4),
            ("SIZE", 15),
            ("SIZE * 2 + 1", 31),
            ("(SIZE + TPB - 1) / TPB", 2),
            ("SIZE % TPB", 7),
            ("-(TPB)", -8),
            ("1_024", 1024),
        ];
        for (text, want) in cases {
            assert_eq!(eval(text, &consts()), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_table() {
        let cases = [
            ("", "empty"),
            ("N", "unknown constant `N` (known: SIZE, TPB)"),
            ("(SIZE", "missing `)`"),
            ("SIZE / 0", "division by zero"),
            ("SIZE 2", "unexpected `2`"),
            ("2 ^ 3", "unexpected character `^`"),
            ("SIZE +", "ends too early"),
            ("-(-9223372036854775807 - 1)", "arithmetic overflow"),
            ("(-9223372036854775807 - 1) / -1", "arithmetic overflow"),
            ("(-9223372036854775807 - 1) % -1", "arithmetic overflow"),
            (&"(".repeat(100_000), "nested more than 64 deep"),
            (&"-".repeat(100_000), "nested more than 64 deep"),
        ];
        for (text, want) in cases {
            let err = eval(text, &consts()).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
