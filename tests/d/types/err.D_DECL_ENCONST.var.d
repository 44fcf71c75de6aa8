enum e { A = pid };
