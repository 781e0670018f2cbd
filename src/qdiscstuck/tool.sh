# shellcheck shell=bash
# What the shell tooling (tools/tools.sh) knows of qdiscstuck, beside its C.
# every_hook_args: the options under which it declares every hook it has
# (none: it declares them all on every run).
every_hook_args=
