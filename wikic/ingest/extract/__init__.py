"""Source text -> the model's plan for it, anchored into the source.

- `windows`: the source cut into overlapping windows by the token estimate (and a cut-off window in two);
- `prompt`: what the model is asked, for each strategy, with a worked example;
- `signals`: whether a text names things (so a plan of nothing is never accepted in silence);
- `run`: the strategies (`single`, `two-pass`, `auto`) and the calls, in parallel, typed and cached;
- `limits`: how well a window supports an item of a reply over its plan's limits (the items kept are those);
- `merge`: window plans merged into one plan per source.
"""
