from referee.boot import run, start
if __name__ == "__main__":
    run()
