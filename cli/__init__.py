"""The `fade` command line (click), installed as fade.cli. Entry point:
`fade.cli.main.main(argv)`."""
