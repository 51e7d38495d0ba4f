"""The `fade` command line (click). Entry point: `cli.main.main(argv)`."""
