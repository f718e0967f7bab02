import SpoolCommands

// The `spool` command: parse the arguments, run the command, exit with its status.
Program.spool.runAsProcess()
