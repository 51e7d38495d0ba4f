"""`python -m fade.cli`: the fade command line, as `python -m fade`."""

if __name__ == "__main__":  # not when a spawned worker process (fade.frames) imports this module
    from fade.cli.main import entry

    entry()
