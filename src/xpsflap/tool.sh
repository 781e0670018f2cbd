# shellcheck shell=bash
# What the shell tooling (tools/tools.sh) knows of xpsflap, beside its C.
# every_hook_args: the options under which it declares every hook it has.
# --pin's companion program (xf_pin_tc) is declared only with --pin, and
# on lo's one queue --pin changes nothing.
every_hook_args="--pin --dev lo"
