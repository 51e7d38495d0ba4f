from cli.main import entry

if __name__ == "__main__":  # not when a worker process (fade.frames) imports this module
    entry()
