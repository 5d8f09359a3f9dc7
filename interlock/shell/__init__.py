"""Reading shell text into interlock's model: what a command line says, before anyone judges it.

`parse.parse(text)` is the face: it never raises and returns a `model.ParseResult` of
`model` types (Word, SimpleCommand, Pipeline, CommandList, Compound). Its parts: `lex`
(quote-aware word scanning), `tokens` (the one tokenizer), `prep` (masking what bashlex cannot
read), `bashtree` (bashlex's tree into our types; the only module that imports bashlex) and
`fallback` (the conservative parser, also the fast path for plain lines).

May import: ground.
"""
