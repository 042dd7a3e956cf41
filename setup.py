"""Packaging: the design card's top-level folders install inside the ``commoncause`` package.

``envs/``, ``agents/`` and ``train/`` become ``commoncause.envs`` and so on, so a wheel puts
only ``commoncause`` in site-packages; every game's shipped policies (``Game.checkpoint``:
Common Cause's ``checkpoints/normal/``, the rummies' per seat count) and the configs travel
with it. Every other setting is in pyproject.toml.
"""

from setuptools import find_packages, setup

FOLDERS = ("envs", "agents", "train")
SHIPPED = ["*.pt", "*.json", "*.png", "*.md"]  # weights, model card, curve, README card
POLICIES = ("normal", "dummy_rummy_2p", "dummy_rummy_2p_all", "dummy_rummy_4p",
            "dummy_rummy_4p_all", "open_rummy_2p", "open_rummy_4p")  # fmt: skip
DATA = {**{f"checkpoints.{name}": SHIPPED for name in POLICIES}, "configs": ["*.yaml"]}

packages = ["commoncause", *find_packages(include=["commoncause.*"])]
package_dir = {"commoncause": "commoncause"}
for folder in FOLDERS:
    package_dir[f"commoncause.{folder}"] = folder
    packages.append(f"commoncause.{folder}")
    packages += [f"commoncause.{p}" for p in find_packages(include=[f"{folder}.*"])]
for data_package in DATA:
    name = f"commoncause.{data_package}"
    package_dir[name] = data_package.replace(".", "/")
    packages.append(name)

package_data = {f"commoncause.{p}": patterns for p, patterns in DATA.items()}
package_data.update({p: ["*.md"] for p in packages if p.startswith("commoncause.envs.")})
package_data["commoncause.web"] = ["static/*"]  # the browser page (commoncause serve)

setup(packages=packages, package_dir=package_dir, package_data=package_data)
