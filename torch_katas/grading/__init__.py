"""Take-home tasks and their grading: `katas takehome` (takehome.py) writes a candidate's folder,
`katas grade` (grade.py) grades the returned one: each stub is read against the policy for
returned code (policy.py), then each kata runs in a sandboxed process of its own (sandbox.py,
child.py) that reports in the schema of schema.py; reports.py writes the reports."""

__all__: list[str] = []
