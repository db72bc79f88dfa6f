"""The command line's inputs: which files are one dataset, and the preset they are drawn on.

The workflow decides both from ``resources/`` (:mod:`rooflow.workflow.planning`); the command line
from the files it is given, the same way: the ncu exports of one folder are the passes of
one run (:func:`datasets`), and without ``--preset`` an input is drawn on its own peaks
or on the preset of the GPU it names (:func:`select_preset`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rooflow.errors import InputError


def datasets(files: tuple[Path, ...], kind: str | None) -> list[tuple[list[Path], str]]:
    """The inputs among ``files``, each (its files, kind): kind detected unless forced.

    Files of one run are one input, as each kind's :attr:`rooflow.kinds.Kind.one_run` says:
    unitrace reports are one run; the ncu CSV exports of one folder are the passes of one
    run, as the folder itself is: a file of another tool among them (which no kind
    matches) is read with them, and skipped with a note
    (:func:`rooflow.formats.ncu.passes.read_passes`).
    """
    from rooflow.adapters import KINDS, detect_kind

    found: list[tuple[Path, str | None, InputError | None]] = []
    for path in files:
        try:
            found.append((path, kind or detect_kind(path), None))
        except InputError as refused:
            found.append((path, None, refused))
    passes = {p.parent: k for p, k, _ in found  # folder → the kind whose run its files are
              if k and kind is None and KINDS[k].one_run == "folder" and _of_folder(k, p)}
    groups: dict[object, tuple[list[Path], str]] = {}
    for path, this, err in found:
        if this is None and path.parent in passes and _of_folder(passes[path.parent], path):
            this = passes[path.parent]
        elif err is not None:
            raise err
        this = str(this)
        one_run = KINDS[this].one_run
        if one_run == "all" and not path.is_dir():
            key: object = this
        elif one_run == "folder" and passes.get(path.parent) == this and _of_folder(this, path):
            key = (this, path.parent)
        else:
            key = path
        groups.setdefault(key, ([], this))[0].append(path)
    return list(groups.values())


def _of_folder(kind: str, path: Path) -> bool:
    """Whether the name of file ``path`` matches the files of ``kind``'s folder form."""
    from fnmatch import fnmatch

    from rooflow.kinds import KINDS

    return fnmatch(path.name.lower(), Path(KINDS[kind].folder).name)


def select_preset(preset_key, peak_tflops, peak_bandwidth, preset_file, files=(), kind=None,
                  log: Callable[[str], None] = print):
    """The preset to draw ``files`` on: as the workflow picks it when --preset is left out.

    ``--preset``, both peaks, or a measured-peaks ``--preset-file``: as
    :func:`rooflow.roofs.choose_preset`, with one warning per input that names another
    GPU than the preset's ``devices``. Else, from the first input that tells: an ncu
    export or report with its own "Theoretical" peaks (preset ``ncu-NAME``, its error
    naming --preset and --preset-file), or the preset whose ``devices`` list the GPU
    the input names (:func:`rooflow.roofs.preset.device_preset`).
    """
    from rooflow.roofs import choose_preset

    inputs = [d for f in files for d in datasets((f,), kind)]  # each input on its own
    measured_file = _is_peaks_file(preset_file)
    if preset_key is None and not measured_file and inputs and (
            peak_tflops is None or peak_bandwidth is None):
        found = _input_preset(inputs, preset_file, peak_tflops, peak_bandwidth, log)
        if found is not None:
            return found
    try:
        preset = choose_preset(preset_file, preset_key, peak_tflops=peak_tflops,
                               peak_bandwidth_gbs=peak_bandwidth)
    except InputError as err:
        if err.file is not None or preset_key is not None or not inputs:
            raise
        # No preset asked for and none found from the inputs: the line names them.
        first = inputs[0][0]
        raise InputError(str(first[0] if len(first) == 1 else first[0].parent),
                         "names no GPU of a preset and holds no peaks of its own: "
                         f"{err.message} (rooflow presets lists them)") from None
    if preset_key is not None and not measured_file:
        _warn_other_gpu(inputs, preset, log)
    return preset


def _is_peaks_file(preset_file) -> bool:
    from rooflow.roofs import peaks_source

    path = Path(preset_file)
    return path.suffix.lower() not in (".yaml", ".yml") and peaks_source(path) is not None


def _input_preset(inputs, preset_file, peak_tflops, peak_bandwidth, log):
    """The preset of the first input that names its own peaks or its GPU, else None."""
    from rooflow.kinds import KINDS, device_names
    from rooflow.roofs import MEASURED, load_preset, measured_name, read_presets
    from rooflow.roofs.preset import device_preset

    presets = None
    for items, this in inputs:
        given = items if len(items) > 1 else items[0]
        peaks = KINDS[this].own_peaks  # an ncu export's "Theoretical" peaks
        if peaks and MEASURED[peaks].has_peaks(given):
            key = f"{peaks}-{measured_name(given)}"
            try:
                own = load_preset(key, measured_file=given)
            except InputError as err:
                raise InputError(err.file, f"{err.message}; its own peaks are drawn when "
                                 "--preset is left out: give --preset PRESET, or "
                                 "--preset-file with a peaks file", row=err.row,
                                 column=err.column, check=err.check, value=err.value) from None
            log(f"{given if len(items) == 1 else items[0].parent}: drawn on its own "
                  f"Theoretical peaks, preset {key} (--preset to choose another)")
            return own.with_override(peak_tflops, peak_bandwidth)
        names = device_names(this, items[0])
        if names:
            presets = presets if presets is not None else read_presets(preset_file)
            gpu = device_preset(presets, names)
            if gpu is not None:
                log(f"{items[0]}: ran on {names[0]}: drawn on preset {gpu} (--preset "
                      "to choose another)")
                return presets[gpu].with_override(peak_tflops, peak_bandwidth)
    return None


def _warn_other_gpu(inputs, preset, log) -> None:
    """One warning per input whose GPU is not one the preset's ``devices`` name."""
    from rooflow.kinds import device_names

    known = {n.casefold() for n in (preset.key, *preset.devices)}
    if not preset.devices:
        return  # a custom or measured roof names no GPU to compare with
    for items, this in inputs:
        names = device_names(this, items[0])
        if names and not any(n.casefold() in known for n in names):
            ran = repr(names[0]) + (f" ({', '.join(names[1:])})" if names[1:] else "")
            log(f"warning: {items[0]} ran on {ran} but is drawn on {preset.key}, the "
                  f"{' / '.join(preset.devices)}: another GPU's roofs")
