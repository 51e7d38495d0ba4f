"""`python -m fade`: the fade command line (fade.cli)."""

if __name__ == "__main__":  # not when a spawned worker process (fade.frames) imports this module
    from fade.cli.main import entry

    entry()
