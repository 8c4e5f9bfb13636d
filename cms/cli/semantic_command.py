"""`cms semantic download`: fetch the static embedding model of the semantic index once.

The only command that may reach the network for the semantic index (hooks and searches never
do). Needs the `semantic` extra; errors are CmsError and reach the boundary in cms.cli.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cms.console import load_command_config
from cms.errors import CmsError
from cms.semantic import DEFAULT_MODEL, EXTRA_HINT, extra_installed, model_folder

semantic_app = typer.Typer(
    name="semantic", help="The optional semantic index (static embeddings).", no_args_is_help=True
)


class SemanticSetupError(CmsError):
    """The semantic extra is missing."""


@semantic_app.command()
def download(
    name: Annotated[
        str, typer.Option("--name", help="A model2vec model on the Hugging Face hub.")
    ] = DEFAULT_MODEL,
) -> None:
    """Download the model into [semantic] model (default $CMS_HOME/models/semantic), once;
    then `cms reindex` in a project computes its vectors."""
    if not extra_installed():
        raise SemanticSetupError(f"the semantic extra is not installed: {EXTRA_HINT}")
    from cms.semantic.model import download_model

    folder = model_folder(load_command_config())
    download_model(name, folder)
    print(f"saved {name} in {folder}; run `cms reindex` in each project to index it")


def register(app: typer.Typer) -> None:
    app.add_typer(semantic_app)
