"""Where skills come from: a project's skills/ folder and [skills] load without PYTHONPATH, installed modules, the
jarvishub.skills entry points; a source that fails disables only itself, as one line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from skills.registry import BUILTIN, discover_skills, skill_tools
from tools.catalog import builtin_family_tools

SKILL = '''\
from pydantic import BaseModel

from skills.base import SkillContext, skill


class In(BaseModel):
    text: str


class Out(BaseModel):
    node_id: str


@skill(name="{name}", description="{description}", input_model=In, output_model=Out, needs={needs})
def {function}(ctx: SkillContext, inp: In) -> Out:
    return Out(node_id=ctx.call("create_node", kind="text", title=inp.text)["created"])
'''


def skill_source(name: str, description: str = "A test skill.", needs: tuple[str, ...] = ("create_node",)) -> str:
    return SKILL.format(name=name, function=name.replace("-", "_"), description=description, needs=list(needs))


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def own(root: Path, config: dict | None = None):
    found = discover_skills(root, config or {}, builtins=[])
    return found, {s.name: found.sources[s.name] for s in found.skills}


def test_the_skills_folder_loads_without_pythonpath_and_cannot_shadow_jarvishubs_own_modules(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "skills/poster.py": skill_source("poster"),
        # A project module named like one of JarvisHub's own is the project's, and JarvisHub's stays JarvisHub's.
        "skills/base.py": skill_source("base_note"),
        "skills/_palettes.py": "NEON = '#ff00ff'\n",
        "skills/framed.py": "from ._palettes import NEON\nfrom .poster import poster\n"
                            + skill_source("framed", description="Framed in {NEON}."),
        "skills/bundle/__init__.py": skill_source("bundled"),
    })
    assert str(root) not in sys.path
    found, sources = own(root)
    assert sources == {"bundled": "skills/bundle", "base_note": "skills/base.py", "framed": "skills/framed.py",
                       "poster": "skills/poster.py"}  # poster is framed's import, not framed's own
    assert found.problems == []
    import skills.base

    assert hasattr(skills.base, "SkillContext")


def test_project_file_loads_modules_of_the_project_then_installed_ones(tmp_path: Path, installed: Path) -> None:
    root = write(tmp_path / "p", {"my_skills.py": skill_source("one") + skill_source("two").split("\n\n\n", 1)[1]})
    write(installed, {"studio_installed.py": skill_source("from_pip")})
    found, sources = own(root, {"skills": {"load": ["my_skills:one", "my_skills", "studio_installed:from_pip"]}})
    assert sources == {"one": "jarvishub.toml [skills] load 'my_skills:one'",
                       "two": "jarvishub.toml [skills] load 'my_skills'",
                       "from_pip": "jarvishub.toml [skills] load 'studio_installed:from_pip'"}
    assert found.problems == []


def test_two_projects_with_modules_of_one_name_each_load_their_own(tmp_path: Path) -> None:
    first = write(tmp_path / "a", {"my_skills.py": skill_source("mine", description="Project a's.")})
    second = write(tmp_path / "b", {"my_skills.py": skill_source("mine", description="Project b's.")})
    load = {"skills": {"load": ["my_skills:mine"]}}
    assert own(first, load)[0].skills[0].description == "Project a's."
    assert own(second, load)[0].skills[0].description == "Project b's."


def test_each_broken_source_is_one_line_and_the_rest_load(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "skills/good.py": skill_source("good"),
        "skills/missing_package.py": "import no_such_package_here\n",
        "skills/typo.py": "def broken(:\n",
        "skills/raises.py": "raise RuntimeError('no palette configured')\n",
        "skills/nothing.py": "HELPER = 1\n",
        "skills/bad_name.py": skill_source("bad-name"),
        "helpers.py": "NOT_A_SKILL = 3\n",
    })
    found, sources = own(root, {"skills": {"load": ["helpers:NOT_A_SKILL", "helpers:absent", "nowhere.at_all:x"]}})
    assert sources == {"good": "skills/good.py"}
    lines = [p.line() for p in found.problems]
    assert all("\n" not in line and "Traceback" not in line for line in lines), lines
    assert lines == [
        "skills/bad_name.py: ValueError: skill name 'bad-name' must be a letter then letters, digits or _ (at most 57)",
        "skills/missing_package.py: ModuleNotFoundError: No module named 'no_such_package_here'",
        "skills/nothing.py: defines no skill (helpers go in modules whose names start with _)",
        "skills/raises.py: RuntimeError: no palette configured",
        "skills/typo.py: SyntaxError: invalid syntax (typo.py, line 1)",
        "jarvishub.toml [skills] load 'helpers:NOT_A_SKILL': TypeError: helpers:NOT_A_SKILL is not a Skill but int "
        "(make one with @skill, Skill(...) or skills.compose)",
        "jarvishub.toml [skills] load 'helpers:absent': AttributeError: module "
        f"'{found_module(root)}.helpers' has no attribute 'absent'",
        "jarvishub.toml [skills] load 'nowhere.at_all:x': ModuleNotFoundError: No module named 'nowhere'",
    ]


def found_module(root: Path) -> str:
    from skills.registry import project_package

    return project_package(root)


def test_installed_packages_add_skills_through_entry_points(tmp_path: Path, installed: Path) -> None:
    """A package as pip leaves it: its module, and a dist-info folder whose entry_points.txt names the skills."""
    write(installed, {
        "studio_pkg.py": skill_source("signature"),
        "studio_pkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: studio-pkg\nVersion: 1.0\n",
        "studio_pkg-1.0.dist-info/entry_points.txt": "[jarvishub.skills]\nsignature = studio_pkg:signature\n"
                                                      "stale = studio_pkg:removed_in_1_0\n",
    })
    found, sources = own(tmp_path)
    assert sources == {"signature": "entry point signature = studio_pkg:signature (studio-pkg)"}
    assert [p.line() for p in found.problems] == [
        "entry point stale = studio_pkg:removed_in_1_0 (studio-pkg): AttributeError: module 'studio_pkg' has no "
        "attribute 'removed_in_1_0'"]
    everything = discover_skills(tmp_path, {})
    assert everything.sources["storyboard"] == BUILTIN and everything.sources["signature"].startswith("entry point")


def test_a_skill_needing_a_tool_the_project_lacks_is_disabled_with_a_line(tmp_path: Path) -> None:
    root = write(tmp_path, {"skills/fine.py": skill_source("fine"),
                            "skills/needs_more.py": skill_source("needs_more", needs=("create_node", "print_poster"))})
    project = SimpleNamespace(root=root, settings=SimpleNamespace(project={}))
    tools, infos, services = skill_tools(project, [t.name for t in builtin_family_tools()] + ["evaluate_node"])
    names = {i.name for i in infos}
    assert "fine" in names and "needs_more" not in names and "skill__needs_more" not in {t.name for t in tools}
    assert [p.line() for p in services["skill_problems"]] == [
        "skills/needs_more.py: skill needs_more needs print_poster, which this project has no tool of that name for "
        "(see `jarvishub tools`)"]


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path, as site-packages is: what is written there is installed."""
    site = tmp_path / "site"
    site.mkdir()
    sys.path.append(str(site))
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.startswith(("studio_", "studio-"))]:
            del sys.modules[name]
