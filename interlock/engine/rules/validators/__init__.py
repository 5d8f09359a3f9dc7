"""Recognising validators: which runner a command is, its tier, and selection masking.

`classify` is the face; the recognisers are grouped by ecosystem (`python`, `javascript`,
`native`, `build`) and share `runner` (the `Seen` result, name classification and the
masked-validator rule ids).
"""
