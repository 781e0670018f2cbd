# shellcheck shell=bash
# What the shell tooling (tools/tools.sh) knows of tcpstall, beside its C.
# every_hook_args: the options under which it declares every hook it has.
# The kick's programs are declared only with --fix=kick, which kicks
# tsq_idle sockets only.
every_hook_args="--fix=kick"
