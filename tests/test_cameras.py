"""The cameras (companion/cameras): each backend on a recorded or simulated source (a fake
picamera2 module, a video written here with cv2.VideoWriter, a folder of pictures, frame
iterators), the [camera] settings, and CameraFeed's reconnects and stale frames on a clock the
test sets; one short game on the simulated table read through a camera that drops out."""

from __future__ import annotations

import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from companion.cameras import (
    CameraError,
    CameraFeed,
    CameraSettings,
    Controls,
    EndOfSource,
    Frame,
    camera_settings,
    open_camera,
)
from companion.cameras.feed import POLL_SLEEP, STALE_LIMIT
from companion.cameras.folder import FolderCamera
from companion.cameras.opencv import FLUSH_FRAMES, UsbCamera, VideoFileCamera
from companion.cameras.picam import MISSING, PiCamera
from companion.cameras.simulated import FramesCamera, disconnected
from companion.errors import ConfigError
from companion.games.starwars import models as starwars_models

SIDE = 24  # the bright square that numbers a recorded frame: its left edge is at SIDE * number
WIDTH, HEIGHT = 320, 96


class Clock:
    """time.monotonic and time.sleep for a test: sleeping moves the clock on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def numbered(n: int) -> np.ndarray:
    """A dark frame with a bright square whose place says ``n``."""
    image = np.full((HEIGHT, WIDTH, 3), 30, np.uint8)
    image[30 : 30 + SIDE, SIDE * n : SIDE * (n + 1)] = (40, 200, 250)
    return image


def number_of(image: np.ndarray) -> int:
    """The number drawn by ``numbered``, read back from the square's column (survives JPEG)."""
    columns = image[30 : 30 + SIDE].mean(axis=(0, 2))
    return int(np.argmax(columns) // SIDE)


# --- settings ------------------------------------------------------------------------------------


def test_no_section_gives_the_defaults_and_a_full_section_is_read_as_written() -> None:
    assert camera_settings(None) == CameraSettings()
    assert CameraSettings().fps == 5.0 and CameraSettings().source == "picamera2"
    settings = camera_settings(
        {
            "source": "picamera2",
            "camera_num": 1,
            "width": 1920,
            "height": 1080,
            "fps": 4,
            "focus_dioptres": 1.25,
            "exposure_us": 8000,
            "gain": 2,
        }
    )
    assert settings.camera_num == 1 and (settings.width, settings.height) == (1920, 1080)
    assert settings.fps == 4.0
    assert settings.controls == Controls(focus_dioptres=1.25, exposure_us=8000, gain=2.0)
    assert camera_settings({"source": "opencv", "device": "2"}).device == 2
    assert camera_settings({"source": "folder", "folder": "/tmp/x", "loop": True}).folder == Path("/tmp/x")


@pytest.mark.parametrize(
    ("section", "key", "said"),
    [
        ({"fps": -1}, "fps", "above 0, at most 120, not -1"),
        ({"fps": 0}, "fps", "above 0, not 0"),
        ({"fps": "fast"}, "fps", 'not "fast"'),
        ({"source": "webcam"}, "source", 'one of picamera2, opencv, folder, none, simulator, not "webcam"'),
        ({"camera_num": -1}, "camera_num", "not -1"),
        ({"camera_num": True}, "camera_num", "not true"),
        ({"width": 1280.5}, "width", "not 1280.5"),
        ({"height": 10}, "height", "from 16 to 8192, not 10"),
        ({"device": 1.5}, "device", "/dev/video0"),
        ({"device": ""}, "device", 'not ""'),
        ({"device": 99999999999999}, "device", "a camera index from 0 to 255, not 99999999999999"),
        ({"device": "300"}, "device", "from 0 to 255, not 300"),
        ({"device": -1}, "device", "from 0 to 255, not -1"),
        ({"loop": "yes"}, "loop", 'true or false, not "yes"'),
        ({"realtime": 1}, "realtime", "true or false, not 1"),
        ({"focus_dioptres": -0.5}, "focus_dioptres", "not -0.5"),
        ({"exposure_us": 0}, "exposure_us", "microseconds"),
        ({"exposure_us": 1.5}, "exposure_us", "not 1.5"),
        ({"gain": 0.5}, "gain", "from 1 to 64, not 0.5"),
        ({"source": "folder"}, "folder", 'needed when source is "folder"'),
        ({"fsp": 5}, "fsp", '[camera] fsp: no such key; did you mean "fps"?'),
        ({"colour": "red"}, "colour", "no such key; the keys are source"),
    ],
)
def test_each_bad_key_is_refused_by_name(section: dict[str, Any], key: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        camera_settings(section)
    assert str(caught.value).startswith(f"[camera] {key}: ")
    assert said in str(caught.value)


def test_open_camera_builds_each_backend_without_opening_it(tmp_path: Path) -> None:
    # a Pi camera is built even where picamera2 is missing: it is only imported on open()
    pi = open_camera(camera_settings({"camera_num": 1}))
    assert isinstance(pi, PiCamera) and pi.name == "Pi camera 1 (picamera2)"
    usb = open_camera(camera_settings({"source": "opencv", "device": "/dev/video2"}))
    assert isinstance(usb, UsbCamera) and usb.name == "USB camera /dev/video2"
    assert isinstance(open_camera(camera_settings({"source": "opencv", "device": 0})), UsbCamera)
    video = open_camera(camera_settings({"source": "opencv", "device": str(tmp_path / "table.avi")}))
    assert isinstance(video, VideoFileCamera) and video.name == "video file table.avi"
    folder = open_camera(camera_settings({"source": "folder", "folder": str(tmp_path)}))
    assert isinstance(folder, FolderCamera) and folder.name == f"frames in {tmp_path}"
    for source in ("simulator", "none"):
        with pytest.raises(ValueError):
            open_camera(camera_settings({"source": source}))


# --- picamera2, through a fake module -------------------------------------------------------------


class FakePicamera2:
    """Records what the backend asks of picamera2; ``script`` says what each capture gives."""

    cameras = 1
    made: ClassVar[list[FakePicamera2]] = []
    autofocus = True
    script: ClassVar[list[str]] = []  # per capture: "frame", "timeout" or "error"; frames after it runs out

    @classmethod
    def global_camera_info(cls) -> list[dict[str, str]]:
        return [{"Model": "imx708"}] * cls.cameras

    def __init__(self, camera_num: int) -> None:
        self.camera_num = camera_num
        self.config: dict[str, Any] = {}
        self.controls: list[dict[str, Any]] = []
        self.started = self.closed = False
        self.camera_controls = {"AeEnable": (False, True, True)}
        if self.autofocus:
            self.camera_controls |= {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}
        self.waits: list[float | None] = []
        FakePicamera2.made.append(self)

    def create_video_configuration(self, **config: Any) -> dict[str, Any]:
        self.config = config
        return {"made": config}

    def configure(self, config: dict[str, Any]) -> None:
        assert config == {"made": self.config}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.append(dict(controls))

    def start(self) -> None:
        self.started = True

    def capture_array(self, name: str, wait: Any = None) -> str:
        assert name == "main" and wait is False  # a job, so that the wait can time out
        return "job"

    def wait(self, job: str, timeout: float | None = None) -> np.ndarray:
        self.waits.append(timeout)
        step = self.script.pop(0) if self.script else "frame"
        if step == "timeout":
            raise TimeoutError()
        if step == "error":
            raise RuntimeError("Camera frontend has timed out!")
        height = self.config["main"]["size"][1]
        width = self.config["main"]["size"][0]
        image = np.zeros((height, width, 3), np.uint8)
        image[..., 0] = 255  # byte 0 of each pixel: blue in RGB888, handed on untouched
        return image

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(FakePicamera2, "made", [])
    monkeypatch.setattr(FakePicamera2, "script", [])
    monkeypatch.setattr(FakePicamera2, "cameras", 2)
    return FakePicamera2


def test_pi_camera_asks_for_rgb888_its_size_rate_number_and_a_fixed_focus(
    picamera2: type[FakePicamera2],
) -> None:
    camera = PiCamera(1, (640, 360), fps=4, controls=Controls(focus_dioptres=1.25))
    camera.open()
    made = picamera2.made[0]
    assert made.camera_num == 1 and made.started
    assert made.config["main"] == {"format": "RGB888", "size": (640, 360)}
    assert made.config["controls"] == {"FrameDurationLimits": (250_000, 250_000)}
    assert made.controls[-1] == {"AfMode": 0, "LensPosition": 1.25, "AeEnable": True}
    frame = camera.read(timeout=2.0)
    assert frame.image.shape == (360, 640, 3) and frame.seq == 1
    assert frame.image[0, 0].tolist() == [255, 0, 0]  # blue first: OpenCV's BGR, not swapped
    assert made.waits == [2.0]
    assert camera.apply(Controls(focus_dioptres=2.0, exposure_us=10_000, gain=1.5))
    assert made.controls[-1] == {
        "AfMode": 0,
        "LensPosition": 2.0,
        "AeEnable": False,
        "ExposureTime": 10_000,
        "AnalogueGain": 1.5,
    }
    camera.close()
    camera.close()  # idempotent
    assert made.closed


def test_pi_camera_without_autofocus_gets_no_focus_controls(
    picamera2: type[FakePicamera2], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakePicamera2, "autofocus", False)
    camera = PiCamera(0, controls=Controls(focus_dioptres=1.25))
    camera.open()
    assert picamera2.made[0].controls[-1] == {"AeEnable": True}


def test_pi_camera_problems_are_camera_errors_in_words(
    picamera2: type[FakePicamera2], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(CameraError, match=r"Pi camera 2 \(picamera2\): not found \(2 cameras connected"):
        PiCamera(2).open()
    camera = PiCamera(0)
    camera.open()
    picamera2.script[:] = ["timeout", "error"]
    with pytest.raises(CameraError, match=r"no picture for 0.5 s \(is the ribbon cable loose\?\)"):
        camera.read(0.5)
    with pytest.raises(CameraError, match=r"the capture failed \(Camera frontend has timed out!\)"):
        camera.read(0.5)
    monkeypatch.setitem(sys.modules, "picamera2", None)  # what an import of a missing module meets
    with pytest.raises(CameraError) as caught:
        PiCamera(0).open()
    assert str(caught.value) == MISSING
    assert "sudo apt install python3-picamera2" in MISSING and "--system-site-packages" in MISSING


def test_a_failing_pi_camera_is_reopened_by_the_feed(picamera2: type[FakePicamera2]) -> None:
    clock = Clock()
    camera = PiCamera(0, (64, 48), controls=Controls(focus_dioptres=3.0), clock=clock)
    feed = CameraFeed(camera, clock=clock, sleep=clock.sleep)
    picamera2.script[:] = ["frame", "frame", "error"]
    # the first call opens, the next ones read
    assert [feed.next() is not None for _ in range(4)] == [False, True, True, False]
    assert feed.status is not None and feed.status.startswith("Camera lost: Pi camera 0 (picamera2): ")
    assert "Trying again in 1 s" in feed.status
    assert picamera2.made[0].closed and not feed.connected
    frames = [feed.next() for _ in range(20)]
    assert len(picamera2.made) == 2 and feed.connected and feed.status is None
    assert picamera2.made[1].controls[-1]["LensPosition"] == 3.0  # focus set again after reopening
    seqs = [f.seq for f in frames if f is not None]
    assert seqs == list(range(3, 3 + len(seqs))) and len(seqs) >= 10
    assert feed.faults == 1 and feed.frames == 2 + len(seqs)


# --- OpenCV: a video recorded here, and the USB reader thread --------------------------------------


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 numbered frames at 10 frames a second, MJPG in AVI (the headless build writes it)."""
    path = tmp_path_factory.mktemp("video") / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (WIDTH, HEIGHT))
    assert writer.isOpened()
    for n in range(12):
        writer.write(numbered(n))
    writer.release()
    return path


def read_all(camera: Any, count: int | None = None) -> list[Frame]:
    frames: list[Frame] = []
    while count is None or len(frames) < count:
        try:
            frames.append(camera.read(1.0))
        except EndOfSource:
            break
    return frames


def test_a_video_file_gives_its_frames_in_order_then_ends(video: Path) -> None:
    camera = VideoFileCamera(video, realtime=False)
    camera.open()
    frames = read_all(camera)
    assert [number_of(f.image) for f in frames] == list(range(12))
    assert [f.seq for f in frames] == list(range(1, 13))
    assert frames[0].image.shape == (HEIGHT, WIDTH, 3) and frames[0].image.dtype == np.uint8
    with pytest.raises(EndOfSource, match=r"video file table\.avi: ended after 12 frames"):
        camera.read(1.0)
    camera.close()
    camera.close()


def test_a_looping_video_starts_again_and_a_reopened_one_goes_on(video: Path) -> None:
    camera = VideoFileCamera(video, loop=True, realtime=False)
    camera.open()
    assert [number_of(f.image) for f in read_all(camera, 17)] == [*range(12), *range(5)]
    camera.close()
    camera.open()  # a reconnect does not start the recording over
    assert [number_of(f.image) for f in read_all(camera, 3)] == [5, 6, 7]


def test_a_video_file_keeps_its_own_pace_unless_told_not_to(video: Path, tmp_path: Path) -> None:
    clock = Clock()
    camera = VideoFileCamera(video, clock=clock, sleep=clock.sleep)
    camera.open()
    read_all(camera, 4)
    assert clock.sleeps == pytest.approx([0.1, 0.1, 0.1])  # the file says 10 frames a second
    with pytest.raises(CameraError, match=r"video file nothing.avi: there is no such file"):
        VideoFileCamera(tmp_path / "nothing.avi").open()


class SlowCapture:
    """The recording played at about 50 frames a second, as a camera would deliver it."""

    def __init__(self, path: Path) -> None:
        self.capture = cv2.VideoCapture(str(path))

    def isOpened(self) -> bool:
        return bool(self.capture.isOpened())

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(0.02)
        ok, image = self.capture.read()
        return ok, image

    def release(self) -> None:
        self.capture.release()


def test_the_usb_reader_thread_gives_only_new_frames_in_order(video: Path) -> None:
    """The V4L2 opener swapped for one that plays the recording: the same thread and hand-over."""
    camera = UsbCamera("/dev/video9", opener=lambda device: SlowCapture(video))
    camera.open()
    numbers, seqs = [], []
    with pytest.raises(CameraError, match=r"USB camera /dev/video9 gave no picture \(is it unplugged\?\)"):
        while True:
            frame = camera.read(2.0)
            numbers.append(number_of(frame.image))
            seqs.append(frame.seq)
    camera.close()
    assert numbers[0] >= FLUSH_FRAMES == 2  # the first two pictures after opening are dropped
    assert numbers == sorted(set(numbers)) and numbers[-1] == 11  # never the same one twice
    assert len(numbers) >= 4  # (all 10 unless this machine is very busy)
    assert seqs == list(range(1, len(seqs) + 1))


class StuckCapture:
    """A VideoCapture whose read blocks, as on a camera that stopped answering."""

    def __init__(self) -> None:
        self.go_on = threading.Event()
        self.released = threading.Event()

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        self.go_on.wait(5)
        return False, None

    def release(self) -> None:
        self.released.set()


def test_a_usb_camera_that_stops_answering_times_out_and_is_let_go() -> None:
    stuck = StuckCapture()
    camera = UsbCamera(0, opener=lambda device: stuck)
    camera.open()
    with pytest.raises(CameraError, match=r"USB camera 0: no picture for 0.05 s \(is it unplugged\?\)"):
        camera.read(0.05)
    camera.close()  # does not wait for the stuck read for long
    stuck.go_on.set()
    assert stuck.released.wait(2)
    closed = StuckCapture()
    closed.isOpened = lambda: False  # type: ignore[method-assign]
    with pytest.raises(CameraError, match="USB camera 1: cannot be opened"):
        UsbCamera(1, opener=lambda device: closed).open()


# --- a folder of pictures -------------------------------------------------------------------------


@pytest.fixture
def pictures(tmp_path: Path) -> Path:
    folder = tmp_path / "shots"
    folder.mkdir()
    for n in range(4):
        cv2.imwrite(str(folder / f"{n:02d}.{'jpg' if n == 3 else 'png'}"), numbered(n))
    (folder / "02.png").write_bytes(b"not a picture")  # a broken one among them
    (folder / "notes.txt").write_text("not a frame")
    return folder


def test_a_folder_is_read_in_name_order_and_a_broken_picture_is_skipped(pictures: Path) -> None:
    feed = CameraFeed(FolderCamera(pictures, realtime=False))
    frames = [feed.next() for _ in range(6)]
    assert [number_of(f.image) for f in frames if f is not None] == [0, 1, 3]
    assert feed.skipped == 1 and feed.faults == 0 and feed.ended
    assert feed.status == (
        f"The camera has no more pictures: frames in {pictures}: all 4 pictures have been shown."
    )
    camera = FolderCamera(pictures, loop=True, realtime=False)
    camera.open()
    seen = []
    for _ in range(7):
        try:
            seen.append(number_of(camera.read(1.0).image))
        except CameraError as error:
            assert "cannot read 02.png" in str(error)
    assert seen == [0, 1, 3, 0, 1]
    with pytest.raises(CameraError, match="there is no such folder"):
        FolderCamera(pictures / "missing").open()


# --- CameraFeed on a clock the test sets -----------------------------------------------------------


class TimedCamera(FramesCamera):
    """A FramesCamera that notes the time of each open."""

    def __init__(self, clock: Clock, count: int, faults: Callable[[int], bool] | None = None) -> None:
        super().__init__((numbered(n % 12) for n in range(count)), "test camera", faults, clock)
        self.opened_at: list[float] = []
        self.fault_times: list[float] = []
        self._test_clock = clock

    def open(self) -> None:
        self.opened_at.append(self._test_clock())
        super().open()

    def read(self, timeout: float) -> Frame:
        try:
            return super().read(timeout)
        except EndOfSource:
            raise
        except CameraError:
            self.fault_times.append(self._test_clock())
            raise


def run(feed: CameraFeed, calls: int) -> Iterator[tuple[Frame | None, str | None]]:
    for _ in range(calls):
        yield feed.next(), feed.status


def test_back_off_grows_after_each_fault_and_resets_after_a_good_frame() -> None:
    clock = Clock()
    camera = TimedCamera(clock, 40, faults=lambda n: 3 <= n < 6 or n == 9)
    feed = CameraFeed(camera, clock=clock, sleep=clock.sleep)
    seen = list(run(feed, 200))
    # the waits between each fault and the next open: 0.5, 1, 2, then 0.5 again after good frames
    waits = [opened - failed for failed, opened in zip(camera.fault_times, camera.opened_at[1:], strict=True)]
    assert waits == pytest.approx([0.5, 1.0, 2.0, 0.5])
    assert max(clock.sleeps) <= POLL_SLEEP  # one short sleep a call: the caller's loop keeps turning
    statuses = [status for _, status in seen]
    assert next(s for s in statuses if s) == (
        "Camera lost: test camera: no picture (fault injected on read 3). Trying again in 1 s."
    )
    assert any(s and s.endswith("read 5). Trying again in 2 s.") for s in statuses)
    assert "Camera reconnected: waiting for a picture from test camera." in statuses
    frames = [frame for frame, _ in seen if frame is not None]
    assert [f.seq for f in frames] == list(range(1, 37))  # every frame that came, once, in order
    assert feed.faults == 4 and feed.frames == 36 and feed.ended
    assert statuses[-1] == "The camera has no more pictures: test camera: no more frames."


class ScriptCamera:
    """Hands out the frames and errors it is given, one per read; notes when it was opened."""

    name = "script camera"

    def __init__(
        self, clock: Clock, steps: list[Frame | Exception], open_error: Exception | None = None
    ) -> None:
        self.clock = clock
        self.steps = steps
        self.open_error = open_error
        self.opened_at: list[float] = []
        self.closes = 0

    def open(self) -> None:
        self.opened_at.append(self.clock())
        if self.open_error is not None:
            raise self.open_error

    def read(self, timeout: float) -> Frame:
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    def close(self) -> None:
        self.closes += 1

    def apply(self, controls: Controls) -> bool:
        return controls.automatic


def test_a_stale_frame_is_never_handed_out() -> None:
    clock = Clock()
    image = numbered(0)
    steps: list[Frame | Exception] = [
        Frame(image, 1, clock.now),
        Frame(image, 1, clock.now),  # the same frame again
        Frame(image, 0, clock.now),  # an older one
        Frame(image, 2, clock.now - 1.5),  # kept in a driver from before a cable wiggle
        Frame(image, 3, clock.now - 0.5),
    ]
    feed = CameraFeed(ScriptCamera(clock, steps), clock=clock, sleep=clock.sleep, max_age=1.0)
    got = [feed.next() for _ in range(6)]
    assert [f.seq if f else None for f in got] == [None, 1, None, None, None, 3]  # opened, then read
    assert feed.stale == 3 and feed.faults == 0 and feed.status is None


def test_only_old_pictures_for_long_count_as_a_fault() -> None:
    clock = Clock()
    steps: list[Frame | Exception] = [Frame(numbered(0), 1, clock.now - 5) for _ in range(STALE_LIMIT)]
    camera = ScriptCamera(clock, steps)
    feed = CameraFeed(camera, clock=clock, sleep=clock.sleep)
    assert all(feed.next() is None for _ in range(STALE_LIMIT + 1))
    assert feed.stale == STALE_LIMIT and feed.faults == 1 and camera.closes == 1
    assert feed.status == (
        f"No picture from the camera yet: script camera: gave {STALE_LIMIT} old pictures in a row. "
        "Trying again in 1 s."
    )


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (CameraError("script camera: unplugged"), "script camera: unplugged"),
        (RuntimeError("driver bug"), "script camera failed (driver bug)"),
    ],
)
def test_next_never_raises_even_when_open_fails_every_time(error: Exception, said: str) -> None:
    clock = Clock()
    camera = ScriptCamera(clock, [], open_error=error)
    feed = CameraFeed(camera, clock=clock, sleep=clock.sleep)
    assert all(feed.next() is None for _ in range(3000))
    gaps = np.diff(camera.opened_at).tolist()
    assert gaps[:8] == pytest.approx([0.5, 1, 2, 5, 10, 30, 30, 30])  # 30 s from then on
    assert set(np.round(gaps[5:], 6)) == {30.0}
    assert feed.faults == len(camera.opened_at) and not feed.connected and feed.frames == 0
    assert feed.status is not None
    assert feed.status.startswith(f"No picture from the camera yet: {said}. Trying again in ")
    assert max(clock.sleeps) <= POLL_SLEEP


def test_a_backend_bug_on_read_is_a_fault_not_a_crash() -> None:
    clock = Clock()
    camera = ScriptCamera(clock, [ValueError("bad"), Frame(numbered(1), 5, clock.now + 0.5)])
    feed = CameraFeed(camera, clock=clock, sleep=clock.sleep)
    assert feed.next() is None and feed.connected  # opened
    assert feed.next() is None and feed.faults == 1 and camera.closes == 1
    assert feed.status == "No picture from the camera yet: script camera failed (bad). Trying again in 1 s."
    frames = [feed.next() for _ in range(6)]  # 5 short sleeps through the 0.5 s and open, then read
    assert [f.seq if f else None for f in frames] == [None] * 5 + [5] and feed.status is None


# --- end to end: a short game through a camera that drops out --------------------------------------


def test_a_game_is_still_read_after_the_camera_drops_out_for_three_reads() -> None:
    from companion.games.starwars.reader.loop import CameraLoop
    from companion.games.starwars.reader.tracker import Tracker
    from companion.games.starwars.sim.play import GameRead, simulated_game
    from companion.games.starwars.sim.table import SimulatedTable
    from companion.table.links import EngineLink
    from companion.vision.watcher import Watcher
    from models.training.cell_data import HELD_OUT_CAMERAS, HELD_OUT_STYLES

    truth = simulated_game(seed=3, players=2, tiles=4, meeple_chance=0)
    table = SimulatedTable(truth, HELD_OUT_STYLES[3], HELD_OUT_CAMERAS[7], seed=3)
    model = starwars_models.cell_model()
    link = EngineLink(truth.setup)
    tracker = Tracker(link, model.labels, table.dice)
    loop = CameraLoop(Watcher(model), tracker)
    clock = Clock()
    # reads 12 to 14 are the hand bringing the second tile: the camera is out while it happens
    camera = FramesCamera((shot.frame for shot in table.frames()), faults=disconnected(12, 3), clock=clock)
    feed = CameraFeed(camera, clock=clock, sleep=clock.sleep)
    statuses = set()
    while not feed.ended:
        frame = feed.next()
        statuses.add(feed.status)
        if frame is not None:
            loop.step(frame.image)
    assert feed.faults == 3 and feed.frames == 42 and camera.reads == 46  # 45 frames, then the end
    assert any(s and s.startswith("Camera lost: simulated table: no picture") for s in statuses)
    link.add({"event": "end"})
    read = GameRead(truth, link, tracker, feed.frames)
    tiles = [e for e in read.truth_events() if e["event"] == "tile"]
    assert len(tiles) == 4  # the start tile, then three laid during and after the drop-out
    assert read.read_events() == read.truth_events()
    assert link.game.scores() == truth.game.scores()
