"""The AWS Bedrock Converse format: codec, event-stream decoder, stream assembler, declaration."""

ID_PATTERN = r"^[a-zA-Z0-9_.:-]{1,64}$"
"""The toolUseId Bedrock accepts: botocore's service model for bedrock-runtime (2023-09-30),
shape ToolUseId: pattern `[a-zA-Z0-9_.:-]+`, length 1 to 64."""
