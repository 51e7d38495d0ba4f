from cli.main import entry

entry()
