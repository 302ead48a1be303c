"""A process's memory as Linux reports it, for the benchmark and the soak check."""


def status_fields(pid, fields):
    """The /proc/PID/status figures named in `fields` (VmRSS, VmHWM, ...), in kB; empty once the
    process is gone."""
    values = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in fields:
                    values[key] = int(value.split()[0])
    except OSError:
        pass
    return values


def reset_peak_rss(pid):
    """Makes VmHWM the current RSS (writing 5 to clear_refs, Linux 4.0+), so that it then shows
    the peak of what follows. False where the kernel does not allow it."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False
